package ai.cotal.auth.internal.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.servicehost.HostResult.Status;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service-endpoint write budget (SPEC §13.20, issue #16.1): an owner that binds new request
 * ids faster than its budget is refused {@code resource-exhausted} before anything reaches the
 * auth store, while another owner keeps registering; replays and the operator are not charged.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class EndpointBudgetBrokerTest {
    @TempDir
    Path stateDir;

    @Test
    void anOwnerOverItsBudgetIsRefusedWithNothingWrittenWhileAnotherOwnerRegisters(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir, b -> b.endpointWritesPerPrincipalPerMinute(3))) {
            String iid = EndpointFixture.iid();
            HostRequest.Register first = x.register("weather", iid);
            HostResult pending = x.call(x.owner, first);
            assertEquals(Status.PENDING, pending.status());
            for (int i = 0; i < 3; i++) { // replays of an admitted request id answer and are not charged
                HostResult again = x.call(x.owner, first);
                assertEquals(Status.PENDING, again.status());
                assertEquals(pending.operationId(), again.operationId());
            }
            assertEquals(Status.PENDING, x.call(x.owner, x.register("weather", EndpointFixture.iid())).status());
            assertEquals(Status.COMPLETED, x.call(x.owner, x.approve("weather", iid)).status(), "the third new request id");

            long before = x.lastSequence();
            for (HostRequest fresh : java.util.List.of(x.register("weather", EndpointFixture.iid()), x.approve("weather", iid),
                    new HostRequest.Revoke(EndpointFixture.rid(), "weather", iid))) {
                CotalException refused = assertThrows(CotalException.class, () -> x.call(x.owner, fresh), fresh.kind());
                assertEquals(ErrorCode.RESOURCE_EXHAUSTED, refused.code());
                assertTrue(refused.getMessage().startsWith("service-endpoint budget: this principal made 3 new"
                        + " service-endpoint requests in the last minute (limit 3 per principal per minute)"),
                        refused.getMessage());
                assertFalse(refused.getMessage().contains("/"), "the HTTP refusal filter keeps a message without '/'");
            }
            assertEquals(before, x.lastSequence(), "a refused request wrote nothing to the auth store");
            HostResult replay = x.call(x.owner, first);
            assertEquals(Status.COMPLETED, replay.status(), "an admitted request id still answers over the budget"
                    + " (its instance was approved since)");
            assertEquals(pending.operationId(), replay.operationId());

            HostResult other = x.call(x.other, x.register("weather", EndpointFixture.iid()));
            assertEquals(Status.PENDING, other.status(), "another owner's register is not refused");
        }
    }

    @Test
    void theOperatorIsNotChargedAndTheSpaceBudgetHoldsEveryOwner(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir, b -> b.endpointWritesPerPrincipalPerMinute(5)
                .endpointWritesPerSpacePerMinute(3))) {
            String iid = EndpointFixture.iid();
            x.approved(x.owner, "weather", iid); // register and approve: two new request ids
            assertEquals(Status.PENDING, x.call(x.other, x.register("tides", EndpointFixture.iid())).status());
            HostResult revoked = x.call(x.operator, new HostRequest.Revoke(EndpointFixture.rid(), "weather", iid));
            assertEquals(Status.COMPLETED, revoked.status(), "the operator's request is never charged");
            long before = x.lastSequence();
            CotalException refused = assertThrows(CotalException.class,
                    () -> x.call(x.other, x.register("tides", EndpointFixture.iid())));
            assertEquals(ErrorCode.RESOURCE_EXHAUSTED, refused.code());
            assertTrue(refused.getMessage().contains("this space made 3") && refused.getMessage()
                    .contains("limit 3 per space per minute"), refused.getMessage());
            assertEquals(before, x.lastSequence());
        }
    }
}
