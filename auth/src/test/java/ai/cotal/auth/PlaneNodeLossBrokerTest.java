package ai.cotal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.internal.callout.AuthCallout;
import ai.cotal.auth.internal.callout.CalloutFixture;
import ai.cotal.auth.internal.plane.ConnzLivenessOracle;
import ai.cotal.auth.service.CalloutReplica;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.id.Principal;
import ai.cotal.core.stores.SpaceStores;
import ai.cotal.core.stores.StoreReplicas;
import ai.cotal.testbroker.ClusterMember;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.testbroker.NatsCluster;
import io.nats.client.Connection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #23, the loss of the plane's node, on a real three-member cluster (SPEC §13.13, §13.16,
 * docs/cluster.md): the plane and its own responder on one member, callout replicas on the two
 * others, the authority stores R3. The plane's member is not the meta leader and leads no store
 * (leaders are moved off it first), so this shows the plane's node alone; a store leader's loss is
 * {@code ClusterStoresBrokerTest}'s.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class PlaneNodeLossBrokerTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Duration ANSWERED_WITHIN = Duration.ofSeconds(5);
    private final CalloutFixture f = new CalloutFixture();

    @TempDir
    Path stateDir;

    private String config(ClusterMember m) {
        return ServerConfig.render(f.plane.broker, List.of(f.plane.space), ServerConfigOptions.builder()
                .transport(Transport.plaintext()).storeDir(m.storeDir()).resolver(PlaneFixture.fullResolver(m)).extraAccounts(List.of(f.callout.jwt()))
                .cluster(PlaneFixture.cluster(m)).build());
    }

    @Test
    void losingThePlanesNodeKeepsConnectsAnsweredLosesNoRowAndMovesTheClaimOnlyOnProof(NatsBrokers brokers)
            throws Exception {
        NatsCluster cluster = brokers.startCluster(this::config);
        int victim = (cluster.indexOf(cluster.awaitMetaLeader(WAIT)) + 1) % 3; // the plane's member
        cluster.awaitAccountJetStream(i -> f.plane.admin(cluster.member(i)), WAIT);
        int[] survivors = {(victim + 1) % 3, (victim + 2) % 3};
        NatsBroker planeNode = cluster.member(victim);
        NatsBroker other = cluster.member(survivors[0]);
        AuthAuthorityPlane first = AuthAuthorityPlane.open(f.plane.options(planeNode, stateDir)
                .storeReplicas(StoreReplicas.of(3)).build());
        List<String> streams;
        try (Connection admin = f.plane.admin(other)) {
            streams = SpaceStores.setupAuthority(admin, "alpha", StoreReplicas.of(3)); // verifies: the open made them R3
        }
        String bearer = f.bearer(first, "laptop", List.of(), List.of(), Duration.ofMinutes(5)); // a credential row
        try (AuthCallout planeResponder = f.responder(planeNode, first);
             CalloutReplica onSecond = replica(cluster.member(survivors[0]));
             CalloutReplica onThird = replica(cluster.member(survivors[1]));
             Connection admin = f.plane.admin(other)) {
            for (NatsBroker member : cluster.members()) {
                try (CalloutFixture.Client client = f.connect(member, bearer, nonce("before-" + member.port()))) {
                    assertEquals(Connection.Status.CONNECTED, client.connection().getStatus(), member.url());
                }
            }
            StoreRows.moveLeadersOff(admin, streams, cluster.serverName(victim), WAIT);
            Map<String, StoreRows.Snapshot> before = StoreRows.snapshot(admin, streams);
            assertTrue(before.get("KV_cotal_auth_alpha").rows().values().stream().anyMatch(r -> r.startsWith("$KV."
                    + "cotal_auth_alpha.cred.")), "a credential row was written before the kill");
            assertTrue(before.get("KV_cotal_records_alpha").rows().values().stream().anyMatch(r -> r.contains(".svc.auth.")),
                    "the plane's own service-endpoint record was written before the kill");

            String lostRun = planeNode.serverId();
            cluster.kill(victim);
            long killed = System.nanoTime();
            assertTrue(first.fenced().get(10, TimeUnit.SECONDS).contains("alpha"), "its scanners were on the lost member");
            for (int survivor : survivors) {
                awaitAdmitted(cluster.member(survivor), bearer, killed + ANSWERED_WITHIN.toNanos());
            }
            assertFalse(planeResponder.answering(), "the fenced plane's responder left the queue group");
            for (int i = 0; i < 4; i++) { // none is handed to the fenced plane's responder, wherever it reconnected
                for (int survivor : survivors) {
                    NatsBroker member = cluster.member(survivor);
                    try (CalloutFixture.Client client = f.connect(member, bearer, nonce("steady-" + member.port() + "-" + i))) {
                        assertEquals(Connection.Status.CONNECTED, client.connection().getStatus(), member.url());
                    }
                }
            }
            assertEquals(before, StoreRows.snapshot(admin, streams), "every row and last sequence is there after the kill");

            ConnzLivenessOracle quick = new ConnzLivenessOracle(List.of(other.url()), "alpha",
                    f.plane.space.accountPublicKey(), f.plane.store, Duration.ofSeconds(2));
            PlaneClaimRefusal refused = assertThrows(PlaneClaimRefusal.class, () -> AuthAuthorityPlane.open(
                    f.plane.options(other, stateDir).storeReplicas(StoreReplicas.of(3)).livenessOracle(quick).build()));
            assertEquals(PlaneClaimRefusal.Reason.UNKNOWN, refused.reason(), "silence from the lost member is no proof");
            assertTrue(refused.getMessage().contains("server " + cluster.serverName(victim)), refused.getMessage());
            assertTrue(StoreRows.planeRow(admin).contains("\"generation\":1,"), "the claim did not move");

            cluster.restart(victim); // under its name, with a new server id: the old run's connections are gone
            cluster.awaitHealthy(victim, WAIT);
            assertFalse(lostRun.equals(planeNode.serverId()), "nats-server draws a new id at every start");
            try (AuthAuthorityPlane second = AuthAuthorityPlane.open(f.plane.options(other, stateDir)
                    .storeReplicas(StoreReplicas.of(3)).livenessOracle(quick).build())) {
                assertEquals(2, second.claim().generation(), "reclaimed on the restart proof");
                assertTrue(second.ledger().find(Principal.of(CalloutFixture.OWNER, "laptop")).isPresent(), "the ledger row is the"
                        + " state directory's, untouched by the broker");
            }
        }
        assertThrows(PlaneClaimRefusal.class, first::close, "the fenced plane lost its claim");
    }

    private CalloutReplica replica(NatsBroker member) {
        return CalloutReplica.start(CalloutReplica.Options.builder().server(member.url())
                .stateDirs(Map.of("alpha", stateDir)).secrets(f.plane.store).clock(f.plane.clock).build());
    }

    private static String nonce(String random) {
        return CalloutFixture.nonce("laptop", random.replace('.', '-'));
    }

    /** Connects through {@code member} until the callout admits it, failing past {@code deadline} (nanoTime). */
    private void awaitAdmitted(NatsBroker member, String bearer, long deadline) throws Exception {
        for (int attempt = 0; ; attempt++) {
            try (CalloutFixture.Client client = f.connect(member, bearer, nonce("after-" + member.port() + "-" + attempt))) {
                assertTrue(System.nanoTime() <= deadline, "admitted through " + member.url() + " only after "
                        + ANSWERED_WITHIN);
                return;
            } catch (java.io.IOException e) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("no responder admitted a connect through " + member.url() + " within "
                            + ANSWERED_WITHIN, e);
                }
            }
        }
    }
}
