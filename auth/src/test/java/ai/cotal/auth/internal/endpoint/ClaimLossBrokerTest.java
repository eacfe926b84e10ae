package ai.cotal.auth.internal.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.Grant;
import ai.cotal.auth.PlaneClaimRefusal;
import ai.cotal.auth.PlaneFixture;
import ai.cotal.core.id.Principal;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
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
 * Issue #18 part 5: the plane claim lost under a running host (SPEC §13.1 (d)-(e), §13.13). A
 * successor plane takes the space over on the operator's word while the first plane still runs
 * and still believes it holds the claim. Every write of the first host that checks the claim after
 * that answers {@code held} {@code claim} and writes nothing; the successor finishes the same
 * requests; the first plane's close refuses {@code lost} and leaves the successor's claim alone.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class ClaimLossBrokerTest {
    @TempDir
    Path stateDir;

    /** A second plane on the same space that reclaims the held claim (the operator says its holder is gone). */
    private AuthAuthorityPlane successor(EndpointFixture x) {
        AuthAuthorityPlane next = AuthAuthorityPlane.open(x.f.options(x.nats, stateDir.resolve("successor"))
                .livenessOracle(PlaneFixture.operatorSaysGone()).serviceEndpoints(true).build());
        for (String owner : List.of(EndpointFixture.OWNER, EndpointFixture.OTHER)) { // the successor's own ledger
            next.ledger().grantActor(Principal.of(owner, "laptop"), Grant.of(List.of(), List.of(), List.of()));
        }
        return next;
    }

    private static String planeRow(EndpointFixture x) throws Exception {
        return new String(x.admin.keyValue(x.bucket).get("plane").getValue(), StandardCharsets.UTF_8);
    }

    @Test
    void everyWriteOfAHostWhoseClaimWasTakenHoldsAsClaimAndWritesNothing(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir.resolve("first"))) {
            String iid = EndpointFixture.iid();
            x.approved(x.owner, "weather", iid);
            try (AuthAuthorityPlane next = successor(x)) {
                assertEquals(2, next.claim().generation(), "the successor took the claim over");
                assertFalse(x.plane.fenced().isDone(), "the first plane has not noticed: nothing fenced it");
                long before = x.lastSequence();
                HostRequest.Revoke revoke = new HostRequest.Revoke(EndpointFixture.rid(), "weather", iid);
                HostRequest.NameBind bind = new HostRequest.NameBind(EndpointFixture.rid(), "forecast", "weather",
                        EndpointFixture.OWNER, "dns:forecast.example", 0);
                for (HostResult held : List.of(x.call(x.owner, revoke), x.call(x.operator, bind),
                        x.call(x.owner, x.register("weather", EndpointFixture.iid())))) {
                    assertEquals(Status.HELD, held.status(), String.valueOf(held.reason()));
                    assertEquals("claim", held.reason());
                    assertNull(held.operationId(), "the claim was checked before anything was bound");
                    assertNull(held.denyNew(), "a held answer carries no deny-new");
                }
                assertEquals(before, x.lastSequence(), "nothing was written after the claim was lost");

                HostResult revoked = next.serviceEndpoints().orElseThrow().serve(x.owner, revoke);
                assertEquals(Status.COMPLETED, revoked.status(), "the successor serves the same request: "
                        + revoked.reason());
                assertEquals(HostResult.Completion.APPLIED, revoked.completion());

                PlaneClaimRefusal lost = assertThrows(PlaneClaimRefusal.class, x.plane::close);
                assertEquals(PlaneClaimRefusal.Reason.LOST, lost.reason());
                String row = planeRow(x);
                assertTrue(row.contains("\"generation\":2") && row.contains("\"state\":\"held\"")
                        && row.contains(next.claim().claimId()), "the first plane's close left the successor's claim: " + row);
            }
        }
    }

    @Test
    void aClaimLostBetweenPassesHoldsTheInvocationNamingItsOperation(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir.resolve("first"))) {
            String iid = EndpointFixture.iid();
            x.approved(x.owner, "weather", iid);
            AuthAuthorityPlane[] next = new AuthAuthorityPlane[1];
            long[] afterLoss = new long[1];
            x.engine.hooks(new Hooks() {
                @Override
                public void beforeStep(String key, Plan.Tag tag, EffectConnection effect) {
                    if (tag == Plan.Tag.ADMIT && next[0] == null) { // the binding landed; the claim goes now
                        next[0] = successor(x);
                        String capacity = Rows.cap("weather", iid);
                        x.put(capacity, x.get(capacity)); // the capacity moved: this step misses, a new pass begins
                        afterLoss[0] = x.lastSequence();
                    }
                }
            });
            // a caller grant is admitted to its instance's capacity right after its binding
            HostRequest.CallerGrant grant = new HostRequest.CallerGrant(EndpointFixture.rid(), "weather", iid,
                    new HostRequest.Grantee(EndpointFixture.OTHER, "laptop"), List.of("ask"));
            try {
                HostResult held = x.call(x.owner, grant);
                assertNotNull(next[0], "the hook ran");
                assertEquals(Status.HELD, held.status(), String.valueOf(held.reason()));
                assertEquals("claim", held.reason(), "the next pass checked the claim again");
                assertNotNull(held.operationId(), "the binding landed: the answer names its operation");
                assertEquals(afterLoss[0], x.lastSequence(), "nothing was written after the claim was lost");
                x.engine.hooks(Hooks.NONE);

                HostResult replay = next[0].serviceEndpoints().orElseThrow().serve(x.owner, grant);
                assertEquals(Status.GRANTED, replay.status(), String.valueOf(replay.reason()));
                assertEquals(held.operationId(), replay.operationId(), "the successor finished the same operation");
                assertEquals(PlaneClaimRefusal.Reason.LOST, assertThrows(PlaneClaimRefusal.class, x.plane::close).reason());
            } finally {
                if (next[0] != null) {
                    next[0].close();
                }
            }
        }
    }
}
