package ai.cotal.auth.internal.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.servicehost.HostResult.Status;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * What one pass overlaps (SPEC §13.1 (b) and (d)): the reads it sends together are exactly the
 * reads it makes, and the plane claim checked while the effect connection opens still keeps every
 * write out when it is refused.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class PassOverlapBrokerTest {
    @TempDir
    Path stateDir;

    @Test
    void aPassReadsEachKeyItNeedsOnceAndNoOther(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            String iid = EndpointFixture.iid();
            long before = x.engine.discovery().reads();
            assertEquals(Status.PENDING, x.call(x.owner, x.register("weather", iid)).status());
            assertEquals(3, x.engine.discovery().reads() - before, "register: binding, gate, capacity");

            before = x.engine.discovery().reads();
            HostResult approved = x.call(x.owner, x.approve("weather", iid));
            assertEquals(Status.COMPLETED, approved.status(), String.valueOf(approved.reason()));
            assertEquals(7, x.engine.discovery().reads() - before,
                    "approve: binding, gate, capacity, assignment, then proposal, register operation, approval");
        }
    }

    @Test
    void aClaimRefusedWhileTheEffectConnectionOpensAnswersHeldAndClosesItUnused(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            String held = x.get("plane");
            assertTrue(held.contains("\"state\":\"held\""), held);
            long[] lost = new long[1];
            CompletableFuture<EffectConnection> closed = new CompletableFuture<>();
            x.engine.hooks(new Hooks() {
                @Override
                public void afterDiscovery(HostRequest request, Set<String> scope) {
                    // another plane's takeover, as the claim check reads it
                    lost[0] = x.put("plane",
                            held.replace("\"state\":\"held\"", "\"state\":\"released\""));
                }

                @Override
                public void beforeEffectClose(EffectConnection effect) {
                    closed.complete(effect);
                }
            });
            HostResult result = x.call(x.owner, x.register("weather", EndpointFixture.iid()));
            assertEquals(Status.HELD, result.status());
            assertEquals("claim", result.reason());
            assertNull(result.operationId(), "nothing was bound");
            assertEquals(lost[0], x.lastSequence(), "nothing was written after the claim was lost");
            EffectConnection unused = closed.get(10, TimeUnit.SECONDS);
            unused.gone().get(10, TimeUnit.SECONDS); // the connection opened meanwhile is closed, unused

            x.engine.hooks(Hooks.NONE);
            x.put("plane", held); // the claim back, for the plane's own close
        }
    }
}
