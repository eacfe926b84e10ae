package ai.cotal.auth.internal.endpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import ai.cotal.auth.Granter;
import ai.cotal.servicehost.HostJson;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.servicehost.HostResult.Completion;
import ai.cotal.servicehost.HostResult.Status;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #18 part 5: selectors that name nothing the asker may see read absent, byte for byte the
 * same whether the target is missing or another owner's (SPEC §13.1 "Who may ask", the hosted
 * composition: "Missing and foreign selectors both read absent"); and a bound name stays bound:
 * another request for it is {@code denied} with nothing written, and only the identical request
 * recovers it.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class AbsentAndBoundBrokerTest {
    @TempDir
    Path stateDir;

    /** The answer to {@code request} for {@code granter}: {@code denied}, naming nothing, with no view. */
    private static byte[] absent(EndpointFixture x, Granter granter, HostRequest request) {
        HostResult result = x.call(granter, request);
        assertEquals(Status.DENIED, result.status(), request.kind() + " by " + granter + " reads absent");
        assertNull(result.operationId(), "an absent read names no operation");
        assertNull(result.instance());
        assertNull(result.proposal());
        assertNull(result.operation());
        assertNull(result.grant());
        assertNull(result.grants());
        return HostJson.writeResult(result);
    }

    @Test
    void missingAndForeignSelectorsReadAbsentAlike(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            String iid = EndpointFixture.iid();
            String registerOp = x.approved(x.owner, "weather", iid);
            HostResult granted = x.call(x.owner, new HostRequest.CallerGrant(EndpointFixture.rid(), "weather", iid,
                    new HostRequest.Grantee(EndpointFixture.OTHER, "laptop"), List.of("ask")));
            assertEquals(Status.GRANTED, granted.status(), String.valueOf(granted.reason()));
            String grantId = granted.grant().grantId();
            HostResult bound = x.call(x.operator, new HostRequest.NameBind(EndpointFixture.rid(), "forecast", "weather",
                    EndpointFixture.OWNER, "dns:forecast.example", 0));
            assertEquals(Completion.APPLIED, bound.completion(), String.valueOf(bound.reason()));
            String missingOp = Rows.newId();
            String missingIid = EndpointFixture.iid();
            long before = x.lastSequence();

            // what the owner sees of its own instance, so an absent answer is not the read failing
            assertEquals(Status.COMPLETED, x.call(x.owner, new HostRequest.InstanceRead("weather", iid)).status());
            assertEquals(Status.COMPLETED, x.call(x.owner, new HostRequest.ProposalRead(registerOp)).status());
            assertEquals(Status.COMPLETED, x.call(x.owner, new HostRequest.OperationRead(registerOp)).status());
            assertEquals(Status.COMPLETED, x.call(x.owner, new HostRequest.CallerRead("weather", iid, grantId)).status());

            assertArrayEquals(absent(x, x.owner, new HostRequest.InstanceRead("weather", missingIid)),
                    absent(x, x.other, new HostRequest.InstanceRead("weather", iid)), "instance-read: missing = foreign");
            assertArrayEquals(absent(x, x.owner, new HostRequest.InstanceRead("weather", missingIid)),
                    absent(x, x.operator, new HostRequest.InstanceRead("weather", iid)),
                    "instance-read: the operator reads an instance as absent");
            assertArrayEquals(absent(x, x.owner, new HostRequest.ProposalRead(missingOp)),
                    absent(x, x.other, new HostRequest.ProposalRead(registerOp)), "proposal-read: missing = foreign");
            assertArrayEquals(absent(x, x.owner, new HostRequest.OperationRead(missingOp)),
                    absent(x, x.other, new HostRequest.OperationRead(registerOp)), "operation-read: missing = foreign");
            assertArrayEquals(absent(x, x.owner, new HostRequest.OperationRead(missingOp)),
                    absent(x, x.owner, new HostRequest.OperationRead(bound.operationId())),
                    "operation-read: a name-bind operation is the operator's");
            assertArrayEquals(absent(x, x.owner, new HostRequest.CallerRead("weather", iid, Rows.newId())),
                    absent(x, x.other, new HostRequest.CallerRead("weather", iid, grantId)),
                    "caller-read: missing = foreign, even for the grantee");
            assertArrayEquals(absent(x, x.owner, new HostRequest.CallerList("weather", missingIid, null, null)),
                    absent(x, x.other, new HostRequest.CallerList("weather", iid, null, null)),
                    "caller-list: missing = foreign");
            absent(x, x.owner, new HostRequest.NameRead("nowhere"));
            assertEquals(List.of(), x.call(x.other, new HostRequest.InstanceList(null, null)).instances(),
                    "another owner's list names none of this owner's instances");
            assertEquals(Status.COMPLETED, x.call(x.operator, new HostRequest.OperationRead(bound.operationId())).status(),
                    "the operator reads its name-bind operation");
            assertEquals(before, x.lastSequence(), "reads write nothing");
        }
    }

    @Test
    void anotherRequestForABoundNameIsDeniedAndWritesNothing(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            HostRequest.NameBind first = new HostRequest.NameBind(EndpointFixture.rid(), "forecast", "weather",
                    EndpointFixture.OWNER, "dns:forecast.example", 0);
            HostResult bound = x.call(x.operator, first);
            assertEquals(Completion.APPLIED, bound.completion(), String.valueOf(bound.reason()));
            String stored = x.get(Rows.name("forecast"));
            long before = x.lastSequence();

            for (HostRequest.NameBind other : List.of(
                    new HostRequest.NameBind(EndpointFixture.rid(), "forecast", "storm", EndpointFixture.OTHER,
                            "dns:storm.example", 0),
                    new HostRequest.NameBind(EndpointFixture.rid(), "forecast", "weather", EndpointFixture.OWNER,
                            "dns:forecast.example", 0))) { // the same binding under another request id
                for (int attempt = 0; attempt < 2; attempt++) {
                    HostResult denied = x.call(x.operator, other);
                    assertEquals(Status.DENIED, denied.status(), String.valueOf(denied.reason()));
                    assertEquals("the name is already bound", denied.reason());
                    assertNull(denied.operationId(), "a denied request names no operation");
                    assertNull(denied.name(), "a denied request learns nothing of the binding");
                }
            }
            assertEquals(before, x.lastSequence(), "nothing was written");
            assertEquals(stored, x.get(Rows.name("forecast")), "the binding is unchanged");
            assertEquals(bound.name(), x.call(x.other, new HostRequest.NameRead("forecast")).name());

            HostResult recovered = x.call(x.operator, first);
            assertEquals(Completion.STORED, recovered.completion(), "only the identical request recovers the binding");
            assertEquals(bound.operationId(), recovered.operationId());
            assertEquals(bound.name(), recovered.name());
            assertEquals(before, x.lastSequence(), "the recovery wrote nothing");
            assertEquals(stored, new String(x.admin.keyValue(x.bucket).get(Rows.name("forecast")).getValue(),
                    StandardCharsets.UTF_8));
        }
    }
}
