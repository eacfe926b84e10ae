package ai.cotal.auth.internal.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.servicehost.HostResult.Status;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * What one pass overlaps (SPEC §13.1 (b) and (d)): the reads it sends together are exactly the
 * reads it makes; a register's connection opens during its discovery, scoped to exactly what it
 * writes, and closes unused when the plan writes something else or nothing; the plane claim checked
 * while the effect connection opens still keeps every write out when it is refused.
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
    void aFreshRegisterWritesOnTheConnectionOpenedDuringItsDiscoveryAndADeniedOneClosesItsOwnUnused(NatsBrokers brokers)
            throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            BlockingQueue<EffectConnection> wrote = new LinkedBlockingQueue<>();
            BlockingQueue<EffectConnection> closed = new LinkedBlockingQueue<>();
            x.engine.hooks(new Hooks() {
                @Override
                public void beforeStep(String key, Plan.Tag tag, EffectConnection effect) {
                    wrote.add(effect);
                }

                @Override
                public void beforeEffectClose(EffectConnection effect) {
                    closed.add(effect);
                }
            });
            HostRequest.Register register = x.register("weather", EndpointFixture.iid());
            HostResult pending = x.call(x.owner, register);
            assertEquals(Status.PENDING, pending.status(), String.valueOf(pending.reason()));
            EffectConnection used = wrote.poll();
            assertEquals(Set.of(Rows.req(register.requestId()), Rows.cap("weather", register.instanceId()),
                    Rows.op(pending.operationId()), Rows.prop(pending.operationId()), Rows.gate("weather", register.instanceId())),
                    used.scope(), "scoped to exactly the five keys the register wrote");
            assertEquals(5, wrote.size() + 1, "five writes");
            assertTrue(wrote.stream().allMatch(e -> e == used), "all on one connection");
            assertSame(used, closed.poll(10, TimeUnit.SECONDS), "the one it wrote on is the one closed");
            wrote.clear();

            long seq = x.lastSequence();
            HostRequest.Register again = new HostRequest.Register(EndpointFixture.rid(), "weather", register.instanceId(),
                    EndpointFixture.CONTRACT, List.of("ask"));
            HostResult denied = x.call(x.owner, again);
            assertEquals(Status.DENIED, denied.status());
            EffectConnection unused = closed.poll(10, TimeUnit.SECONDS);
            assertNotNull(unused, "the connection opened during discovery is closed");
            assertTrue(unused.scope().contains(Rows.req(again.requestId())), "it was the denied request's own");
            assertTrue(wrote.isEmpty(), "no step ran");
            assertEquals(seq, x.lastSequence(), "nothing written");
        }
    }

    @Test
    void aClaimRefusedWhileTheEffectConnectionOpensAnswersHeldAndClosesItUnused(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            String held = x.get("plane");
            assertTrue(held.contains("\"state\":\"held\""), held);
            String iid = EndpointFixture.iid();
            assertEquals(Status.PENDING, x.call(x.owner, x.register("weather", iid)).status());
            // a register (its connection opened during discovery) and a decide (opened after it)
            for (HostRequest request : List.of(x.register("weather", EndpointFixture.iid()), x.approve("weather", iid))) {
                long[] lost = new long[1];
                CompletableFuture<EffectConnection> closed = new CompletableFuture<>();
                x.engine.hooks(new Hooks() {
                    @Override
                    public void afterDiscovery(HostRequest r, Set<String> scope) {
                        // another plane's takeover, as the claim check reads it
                        lost[0] = x.put("plane", held.replace("\"state\":\"held\"", "\"state\":\"released\""));
                    }

                    @Override
                    public void beforeEffectClose(EffectConnection effect) {
                        closed.complete(effect);
                    }
                });
                HostResult result = x.call(x.owner, request);
                assertEquals(Status.HELD, result.status(), request.kind());
                assertEquals("claim", result.reason());
                assertNull(result.operationId(), "nothing was bound");
                assertEquals(lost[0], x.lastSequence(), "nothing was written after the claim was lost");
                EffectConnection unused = closed.get(10, TimeUnit.SECONDS);
                unused.gone().get(10, TimeUnit.SECONDS); // the connection opened meanwhile is closed, unused

                x.engine.hooks(Hooks.NONE);
                x.put("plane", held); // the claim back
            }
        }
    }
}
