package ai.cotal.core.stores;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.BrokerClients;
import ai.cotal.core.BrokerClients.Client;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.ClusterMember;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.testbroker.NatsCluster;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.KeyValue;
import io.nats.client.api.ClusterInfo;
import io.nats.client.api.StreamInfo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** SPEC §6 Replicas on a real three-member cluster (operator mode, full resolver on every member). */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class ClusterStoresBrokerTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private final Clock clock = Clock.systemUTC();
    private final BrokerAuth broker = BrokerAuth.create("cluster", clock);
    private final SpaceAccountAuth space = SpaceAccountAuth.create(broker, "alpha", clock);

    private String config(ClusterMember m) {
        return ServerConfig.render(broker, List.of(space), ServerConfigOptions.builder().transport(Transport.plaintext())
                .storeDir(m.storeDir()).resolver(BrokerClients.fullResolver(m)).cluster(BrokerClients.cluster(m)).build());
    }

    private Client connect(NatsCluster cluster, int member, Creds creds) throws Exception {
        return BrokerClients.connect(cluster.member(member), creds);
    }

    @Test
    void provisionsR3StoresRefusesR1DriftAndSurvivesAKilledMember(NatsBrokers brokers) throws Exception {
        NatsCluster cluster = brokers.startCluster(this::config);
        cluster.awaitMetaLeader(WAIT);
        Creds unrestricted = BrokerClients.unrestricted(space);
        cluster.awaitAccountJetStream(i -> BrokerClients.plain(cluster.member(i), unrestricted), WAIT);
        Creds provisioner = Creds.mint(new SpaceAuth(broker, space), Identity.create(), CredentialProfile.PROVISIONER,
                MintOptions.defaults());
        List<String> authority;
        String authLeader;
        try (Client client = connect(cluster, 0, provisioner)) {
            assertEquals(3, StoreReplicas.auto().resolve(client.connection()), "auto: three servers advertised");
            authority = SpaceStores.setupAuthority(client.connection(), "alpha", StoreReplicas.auto());
            JetStreamManagement jsm = client.connection().jetStreamManagement();
            for (String stream : authority) {
                StreamInfo info = jsm.getStreamInfo(stream);
                assertEquals(3, info.getConfiguration().getReplicas(), stream);
                ClusterInfo placement = info.getClusterInfo();
                assertFalse(placement.getLeader() == null || placement.getLeader().isEmpty(), stream + " has a leader");
                assertEquals(2, placement.getReplicas().size(), stream + " has two followers");
            }
            assertEquals(authority, SpaceStores.setupAuthority(client.connection(), "alpha", StoreReplicas.of(3)),
                    "a second setup verifies R3 and changes nothing");
            authLeader = jsm.getStreamInfo("KV_cotal_auth_alpha").getClusterInfo().getLeader();
        }

        try (Client client = connect(cluster, 0, unrestricted)) {
            SpaceStores.setupAuthority(client.connection(), "beta", StoreReplicas.one());
            CotalException drift = assertThrows(CotalException.class,
                    () -> SpaceStores.setupAuthority(client.connection(), "beta", StoreReplicas.of(3)));
            assertEquals(ErrorCode.FAILED_PRECONDITION, drift.code());
            assertTrue(drift.getMessage().contains("num_replicas is 1, expected 3"), drift.getMessage());
            assertTrue(drift.getMessage().contains("nats stream edit KV_cotal_auth_beta --replicas 3"), drift.getMessage());
            assertTrue(drift.getMessage().contains("SpaceStores.changeReplicas(connection, space, StoreReplicas.of(3))"));
            JetStreamManagement jsm = client.connection().jetStreamManagement();
            assertEquals(1, jsm.getStreamInfo("KV_cotal_auth_beta").getConfiguration().getReplicas(), "left R1");

            assertEquals(6, SpaceStores.changeReplicas(client.connection(), "beta", StoreReplicas.of(3)).size());
            assertEquals(3, jsm.getStreamInfo("KV_cotal_auth_beta").getConfiguration().getReplicas());
            SpaceStores.setupAuthority(client.connection(), "beta", StoreReplicas.of(3));
            assertEquals(List.of(), SpaceStores.changeReplicas(client.connection(), "beta", StoreReplicas.of(3)));
        }

        int victim = cluster.indexOf(authLeader);
        int survivor = (victim + 1) % 3;
        cluster.kill(victim);
        try (Client client = connect(cluster, survivor, unrestricted)) {
            JetStreamManagement jsm = client.connection().jetStreamManagement();
            for (String stream : authority) {
                awaitLeaderOtherThan(jsm, stream, authLeader);
            }
            KeyValue auth = client.connection().keyValue("cotal_auth_alpha");
            byte[] value = "after-kill".getBytes(StandardCharsets.UTF_8);
            long revision = auth.put("probe.k", value);
            assertArrayEquals(value, auth.get("probe.k").getValue(), "leader read (auth: no direct get) sees the write");
            assertEquals(revision, auth.get("probe.k").getRevision());

            cluster.restart(victim);
            cluster.awaitHealthy(victim, WAIT);
            cluster.awaitMetaLeader(WAIT);
            // healthy means the member is back; catching up the stream's missed writes follows it
            long deadline = System.nanoTime() + WAIT.toNanos();
            StreamInfo info = jsm.getStreamInfo("KV_cotal_auth_alpha");
            while (!currentReplica(info, authLeader) && System.nanoTime() < deadline) {
                Thread.sleep(50); // poll interval: no event announces a replica caught up
                info = jsm.getStreamInfo("KV_cotal_auth_alpha");
            }
            assertTrue(currentReplica(info, authLeader), "the restarted member is a current replica again: "
                    + info.getClusterInfo());
        }
    }

    private static boolean currentReplica(StreamInfo info, String member) {
        return info.getClusterInfo() != null && info.getClusterInfo().getReplicas() != null
                && info.getClusterInfo().getReplicas().stream().anyMatch(r -> r.getName().equals(member) && r.isCurrent());
    }

    /** Polls the stream's info (answered by its leader only) until a member other than {@code old} leads it. */
    private static void awaitLeaderOtherThan(JetStreamManagement jsm, String stream, String old) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            try {
                String leader = jsm.getStreamInfo(stream).getClusterInfo().getLeader();
                if (leader != null && !leader.isEmpty() && !leader.equals(old)) {
                    return;
                }
            } catch (JetStreamApiException | IOException e) {
                // No leader yet: the stream answers an error while it elects.
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(stream + " elected no leader within " + WAIT);
            }
            Thread.sleep(50);
        }
    }
}
