package ai.cotal.core.internal.kv;

import static ai.cotal.core.BrokerClients.config;
import static ai.cotal.core.BrokerClients.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.BrokerClients;
import ai.cotal.core.BrokerClients.Client;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.testbroker.ClusterMember;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.testbroker.NatsCluster;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Message;
import io.nats.client.api.PublishAck;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the broker does with the two-message atomic batch of a fenced write (SPEC §13.13 "Fenced
 * writes"), sent with plain jnats publishes: message 1 on a witness subject whose expected
 * last-subject-sequence check names the fence row's subject, message 2 the row with its own
 * condition, committing, as a request. Against the real nats-server, one server and a
 * three-member cluster.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class AtomicFenceBrokerTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String FENCE = "$KV.b.plane.fence.0";
    private static final String WITNESS = "$KV.b.plane.witness.0";
    private final Clock clock = Clock.systemUTC();
    private final BrokerAuth broker = BrokerAuth.create("fence", clock);
    private final SpaceAccountAuth space = SpaceAccountAuth.create(broker, "alpha", clock);

    private static StreamConfiguration stream(boolean atomic, int replicas) {
        return StreamConfiguration.builder().name("KV_b").subjects("$KV.b.>").storageType(StorageType.File)
                .maxMessagesPerSubject(1).replicas(replicas).allowAtomicPublish(atomic).build();
    }

    /** Sends the batch: the witness (no reply) and the row, committing, as a request; the commit's answer. */
    private static CompletableFuture<Message> send(Connection c, long fence, String row, long rowExpected, String data) {
        String id = UUID.randomUUID().toString().replace("-", "").substring(0, 22);
        Headers witness = new Headers().put("Nats-Batch-Id", id).put("Nats-Batch-Sequence", "1")
                .put("Nats-Expected-Last-Subject-Sequence", Long.toString(fence))
                .put("Nats-Expected-Last-Subject-Sequence-Subject", FENCE);
        c.publish(NatsMessage.builder().subject(WITNESS).headers(witness).data("{\"v\":1,\"generation\":1}").build());
        Headers rowHeaders = new Headers().put("Nats-Batch-Id", id).put("Nats-Batch-Sequence", "2")
                .put("Nats-Batch-Commit", "1").put("Nats-Expected-Last-Subject-Sequence", Long.toString(rowExpected));
        return c.requestWithTimeout(NatsMessage.builder().subject(row).headers(rowHeaders)
                .data(data.getBytes(StandardCharsets.UTF_8)).build(), Duration.ofSeconds(5));
    }

    /** The ack's sequence, or minus the API error code. */
    private static long outcome(CompletableFuture<Message> answer) throws Exception {
        try {
            return new PublishAck(answer.get()).getSeqno();
        } catch (JetStreamApiException e) {
            return -e.getApiErrorCode();
        }
    }

    private static long last(JetStreamManagement jsm, String subject) throws Exception {
        try {
            return jsm.getLastMessage("KV_b", subject).getSeq();
        } catch (JetStreamApiException e) {
            return 0;
        }
    }

    @Test
    void aBatchLandsAtTheFenceRevisionAndIsRefusedWholeOnceTheFenceMoved(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> config(b, broker, List.of(space), List.of()));
        try (Client client = connect(nats, BrokerClients.unrestricted(space))) {
            Connection c = client.connection();
            JetStreamManagement jsm = c.jetStreamManagement();
            jsm.addStream(stream(true, 1));
            long r = c.jetStream().publish(FENCE, "{\"v\":1,\"generation\":1}".getBytes(StandardCharsets.UTF_8)).getSeqno();

            long landed = outcome(send(c, r, "$KV.b.row", 0, "{\"n\":1}"));
            assertEquals(last(jsm, "$KV.b.row"), landed, "the ack's seq is the row's revision");
            assertEquals(landed - 1, last(jsm, WITNESS), "the witness landed with it, just before");

            assertEquals(-10071, outcome(send(c, r, "$KV.b.row", 0, "{\"n\":2}")), "the row's own CAS failed");
            assertEquals(landed, last(jsm, "$KV.b.row"));
            assertEquals(landed - 1, last(jsm, WITNESS), "nothing of the refused batch is stored");

            long moved = c.jetStream().publish(FENCE, "{\"v\":1,\"generation\":2}".getBytes(StandardCharsets.UTF_8)).getSeqno();
            long before = jsm.getStreamInfo("KV_b").getStreamState().getLastSequence();
            assertEquals(-10071, outcome(send(c, r, "$KV.b.row", landed, "{\"n\":3}")), "the fence moved: 10071");
            assertEquals(before, jsm.getStreamInfo("KV_b").getStreamState().getLastSequence(), "nothing stored");
            assertEquals(landed, last(jsm, "$KV.b.row"));
            assertTrue(outcome(send(c, moved, "$KV.b.row", landed, "{\"n\":4}")) > moved, "at the new revision it lands");

            // R1: each commit is checked and stored under the stream's isolation, so a second batch on
            // the same lane sent before the first's answer sees the first applied and lands as well.
            List<CompletableFuture<Message>> inFlight = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                inFlight.add(send(c, moved, "$KV.b.r" + i, 0, "{}"));
            }
            for (CompletableFuture<Message> answer : inFlight) {
                assertTrue(outcome(answer) > 0, "R1 lands every batch of one lane in flight");
            }
        }
    }

    @Test
    void aStoreWithoutAtomicPublishRefusesTheBatchWith10174(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> config(b, broker, List.of(space), List.of()));
        try (Client client = connect(nats, BrokerClients.unrestricted(space))) {
            Connection c = client.connection();
            JetStreamManagement jsm = c.jetStreamManagement();
            jsm.addStream(stream(false, 1));
            long r = c.jetStream().publish(FENCE, "{}".getBytes(StandardCharsets.UTF_8)).getSeqno();
            assertEquals(-10174, outcome(send(c, r, "$KV.b.row", 0, "{}")));
            assertEquals(0, last(jsm, "$KV.b.row"));
            assertEquals(0, last(jsm, WITNESS));
        }
    }

    private String memberConfig(ClusterMember m) {
        return ServerConfig.render(broker, List.of(space), ServerConfigOptions.builder().transport(Transport.plaintext())
                .storeDir(m.storeDir()).cluster(BrokerClients.cluster(m)).build());
    }

    @Test
    void onR3ASecondCheckOfOneFenceRowInFlightIsRefusedWith10164AndTheFenceStillHolds(NatsBrokers brokers)
            throws Exception {
        NatsCluster cluster = brokers.startCluster(this::memberConfig);
        cluster.awaitMetaLeader(WAIT);
        cluster.awaitAccountJetStream(i -> BrokerClients.plain(cluster.member(i), BrokerClients.unrestricted(space)), WAIT);
        try (Client client = connect(cluster.member(0), BrokerClients.unrestricted(space))) {
            Connection c = client.connection();
            JetStreamManagement jsm = c.jetStreamManagement();
            jsm.addStream(stream(true, 3));
            long r = c.jetStream().publish(FENCE, "{}".getBytes(StandardCharsets.UTF_8)).getSeqno();
            long landed = outcome(send(c, r, "$KV.b.row", 0, "{}"));
            assertEquals(last(jsm, "$KV.b.row"), landed, "R3: the batch lands at the fence revision");

            // Batches of one lane sent back to back: while the first is proposed and not applied, the
            // leader refuses a second check of the same fence subject with 10164 (and stores nothing of it).
            boolean refused = false;
            for (int round = 0; round < 20 && !refused; round++) {
                List<CompletableFuture<Message>> inFlight = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    inFlight.add(send(c, r, "$KV.b.c" + round + "." + i, 0, "{}"));
                }
                int landedNow = 0;
                for (CompletableFuture<Message> answer : inFlight) {
                    long o = outcome(answer);
                    assertTrue(o > 0 || o == -10164, "an ack or 10164, got " + o);
                    refused |= o == -10164;
                    landedNow += o > 0 ? 1 : 0;
                }
                long stored = 0;
                for (int i = 0; i < 4; i++) {
                    stored += last(jsm, "$KV.b.c" + round + "." + i) > 0 ? 1 : 0;
                }
                assertEquals(landedNow, stored, "exactly the acknowledged batches' rows are stored");
            }
            assertTrue(refused, "a second check of one fence row in flight met 10164");

            long moved = c.jetStream().publish(FENCE, "{}".getBytes(StandardCharsets.UTF_8)).getSeqno();
            assertEquals(-10071, outcome(send(c, r, "$KV.b.row", landed, "{}")), "R3: the fence moved: 10071");
            assertEquals(landed, last(jsm, "$KV.b.row"), "the row unchanged");
            assertFalse(outcome(send(c, moved, "$KV.b.row", landed, "{}")) < 0, "the new revision lands");
        }
    }
}
