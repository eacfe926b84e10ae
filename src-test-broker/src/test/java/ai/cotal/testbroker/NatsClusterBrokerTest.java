package ai.cotal.testbroker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Self-test of the three-member cluster: routes, a replicated stream, a killed and restarted member. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class NatsClusterBrokerTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void threeMembersReplicateAStreamAndSurviveAKilledMember(NatsBrokers brokers) throws Exception {
        NatsCluster cluster = brokers.startCluster(ClusterMember::defaultConfig);
        assertEquals(3, cluster.members().size());
        assertEquals(3, cluster.members().stream().map(NatsBroker::port).distinct().count(), "own client ports");
        assertEquals(3, cluster.members().stream().map(NatsBroker::storeDir).distinct().count(), "own store dirs");
        String leader = cluster.awaitMetaLeader(WAIT);
        assertTrue(Set.of("n1", "n2", "n3").contains(leader), leader);
        try (Connection nc = Nats.connect(new Options.Builder().servers(cluster.urls())
                .connectionTimeout(Duration.ofSeconds(5)).build())) {
            assertEquals(NatsCluster.NAME, nc.getServerInfo().getCluster());
            JetStreamManagement jsm = nc.jetStreamManagement();
            StreamInfo info = jsm.addStream(StreamConfiguration.builder().name("R3").subjects("r3.>").replicas(3).build());
            assertEquals(3, info.getConfiguration().getReplicas());
            String streamLeader = info.getClusterInfo().getLeader();
            Set<String> peers = new TreeSet<>(info.getClusterInfo().getReplicas().stream().map(r -> r.getName())
                    .collect(Collectors.toSet()));
            peers.add(streamLeader);
            assertEquals(Set.of("n1", "n2", "n3"), peers);

            int victim = cluster.indexOf(streamLeader);
            cluster.kill(victim);
            assertFalse(cluster.member(victim).running());
            assertNotEquals(cluster.serverName(victim), cluster.awaitMetaLeader(WAIT), "a running member leads");
            String newLeader = awaitStreamLeader(jsm, streamLeader);
            assertNotEquals(streamLeader, newLeader);
            nc.jetStream().publish("r3.a", new byte[] {1});
            assertEquals(1, jsm.getStreamInfo("R3").getStreamState().getMsgCount());

            cluster.restart(victim);
            cluster.awaitHealthy(victim, WAIT);
            cluster.awaitMetaLeader(WAIT);
            assertTrue(cluster.member(victim).running());
        }
    }

    /** Polls stream info until its leader is a member other than {@code old}. */
    private static String awaitStreamLeader(JetStreamManagement jsm, String old) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            try {
                String leader = jsm.getStreamInfo("R3").getClusterInfo().getLeader();
                if (leader != null && !leader.isEmpty() && !leader.equals(old)) {
                    return leader;
                }
            } catch (io.nats.client.JetStreamApiException | java.io.IOException e) {
                // No leader yet: the stream answers an error while it elects.
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("stream R3 elected no new leader within " + WAIT);
            }
            Thread.sleep(50);
        }
    }
}
