package ai.cotal.core.internal.kv;

import static ai.cotal.core.BrokerClients.config;
import static ai.cotal.core.BrokerClients.connect;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.BrokerClients;
import ai.cotal.core.BrokerClients.Client;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
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
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link FencedWrite} through {@link FenceLanes} against the real broker: one server and a three-member cluster. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class FencedWriteStoreBrokerTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Duration ANSWER = Duration.ofSeconds(5);
    private final Clock clock = Clock.systemUTC();
    private final BrokerAuth broker = BrokerAuth.create("fenced", clock);
    private final SpaceAccountAuth space = SpaceAccountAuth.create(broker, "alpha", clock);

    private static void store(Connection c, boolean atomic, int replicas) throws Exception {
        c.jetStreamManagement().addStream(StreamConfiguration.builder().name("KV_b").subjects("$KV.b.>")
                .storageType(StorageType.File).maxMessagesPerSubject(1).replicas(replicas).allowAtomicPublish(atomic)
                .allowRollup(true).build());
    }

    /** Stamps the 8 fence rows with {@code generation} (as an acquisition would) and reads the lanes back. */
    private static FenceLanes stamp(RowStore rows, long generation, String claimId, Runnable onLost) {
        for (int k = 0; k < FenceRows.LANES; k++) {
            String key = FenceRows.fenceKey(k);
            long at = rows.lastEntry(key).map(RowStore.Entry::revision).orElse(0L);
            rows.compareAndSet(key, FenceRows.write(FenceRows.Fence.of(generation, claimId)), at).orElseThrow();
        }
        return FenceLanes.readBack(rows, generation, claimId, onLost);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void writesLandAtTheFenceAndAfterARestampTheOldLanesAreLostAndWriteNothing(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> config(b, broker, List.of(space), List.of()));
        try (Client client = connect(nats, BrokerClients.unrestricted(space))) {
            Connection c = client.connection();
            store(c, true, 1);
            RowStore rows = new RowStore(c, "b");
            AtomicInteger lostTold = new AtomicInteger();
            FenceLanes old = stamp(rows, 1, "UOLD", lostTold::incrementAndGet);
            FencedWrite oldWrites = new FencedWrite(c, rows, old, ANSWER);

            FencedWrite.Outcome created = oldWrites.create("cred.a", bytes("{\"n\":1}"));
            assertEquals(FencedWrite.Kind.LANDED, created.kind());
            assertEquals(rows.last("cred.a").orElseThrow().revision(), created.revision(), "the outcome names the row's revision");
            assertEquals(FencedWrite.Kind.CONDITION_FAILED, oldWrites.create("cred.a", bytes("{\"n\":2}")).kind(),
                    "taken: the row's own condition, the fence holds");
            assertEquals(FencedWrite.Kind.CONDITION_FAILED, oldWrites.compareAndSet("cred.a", bytes("{}"), created.revision() - 1).kind());
            assertEquals(0, lostTold.get());
            FencedWrite.Outcome moved = oldWrites.compareAndSet("cred.a", bytes("{\"n\":3}"), created.revision());
            assertEquals(FencedWrite.Kind.LANDED, moved.kind());
            for (int k = 0; k < FenceRows.LANES; k++) {
                assertEquals(1, FenceRows.witness("KV_b", FenceRows.witnessKey(k),
                        rows.last(FenceRows.witnessKey(k)).map(RowStore.Row::data).orElse(bytes("{\"v\":1,\"generation\":1}"))).generation());
            }

            FenceLanes next = stamp(rows, 2, "UNEW", null);
            long last = c.jetStreamManagement().getStreamInfo("KV_b").getStreamState().getLastSequence();
            assertEquals(FencedWrite.Kind.LOST, oldWrites.compareAndSet("cred.a", bytes("{\"n\":4}"), moved.revision()).kind());
            assertEquals(1, lostTold.get(), "the plane was told once");
            assertEquals(last, c.jetStreamManagement().getStreamInfo("KV_b").getStreamState().getLastSequence(),
                    "the old claim's write stored nothing");
            assertArrayEquals(bytes("{\"n\":3}"), rows.last("cred.a").orElseThrow().data(), "the row unchanged");
            assertEquals(ErrorCode.UNAVAILABLE, assertThrows(CotalException.class,
                    () -> oldWrites.create("cred.b", bytes("{}"))).code(), "lost lanes refuse every later write");

            FencedWrite newWrites = new FencedWrite(c, rows, next, ANSWER);
            FencedWrite.Outcome deleted = newWrites.delete("cred.a", moved.revision());
            assertEquals(FencedWrite.Kind.LANDED, deleted.kind(), "the new claim's write lands");
            assertEquals(RowStore.Op.DELETE, rows.lastEntry("cred.a").orElseThrow().op());
            CotalException stale = assertThrows(CotalException.class, () -> FenceLanes.readBack(rows, 1, "UOLD", null));
            assertEquals(ErrorCode.FAILED_PRECONDITION, stale.code(), "a read back naming another claim is refused");
        }
    }

    @Test
    void aStoreWithoutAtomicPublishIsAFailedPreconditionNamingIt(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> config(b, broker, List.of(space), List.of()));
        try (Client client = connect(nats, BrokerClients.unrestricted(space))) {
            Connection c = client.connection();
            store(c, false, 1);
            RowStore rows = new RowStore(c, "b");
            FencedWrite writes = new FencedWrite(c, rows, stamp(rows, 1, "U", null), ANSWER);
            CotalException e = assertThrows(CotalException.class, () -> writes.create("cred.a", bytes("{}")));
            assertEquals(ErrorCode.FAILED_PRECONDITION, e.code());
            assertTrue(e.getMessage().contains("KV_b") && e.getMessage().contains("allow_atomic"), e.getMessage());
            assertTrue(rows.last("cred.a").isEmpty());
        }
    }

    private String memberConfig(ClusterMember m) {
        return ServerConfig.render(broker, List.of(space), ServerConfigOptions.builder().transport(Transport.plaintext())
                .storeDir(m.storeDir()).cluster(BrokerClients.cluster(m)).build());
    }

    @Test
    void onR3ConcurrentWritesShareTheLanesAndEveryOneLands(NatsBrokers brokers) throws Exception {
        NatsCluster cluster = brokers.startCluster(this::memberConfig);
        cluster.awaitMetaLeader(WAIT);
        cluster.awaitAccountJetStream(i -> BrokerClients.plain(cluster.member(i), BrokerClients.unrestricted(space)), WAIT);
        try (Client client = connect(cluster.member(1), BrokerClients.unrestricted(space))) {
            Connection c = client.connection();
            store(c, true, 3);
            RowStore rows = new RowStore(c, "b");
            FencedWrite writes = new FencedWrite(c, rows, stamp(rows, 1, "U", null), ANSWER);
            ExecutorService pool = Executors.newFixedThreadPool(16);
            try {
                List<Future<FencedWrite.Outcome>> outcomes = new ArrayList<>();
                for (int i = 0; i < 64; i++) {
                    String key = "cred." + i;
                    outcomes.add(pool.submit(() -> writes.create(key, bytes("{}"))));
                }
                for (int i = 0; i < outcomes.size(); i++) {
                    FencedWrite.Outcome o = outcomes.get(i).get();
                    assertEquals(FencedWrite.Kind.LANDED, o.kind(), "cred." + i);
                    assertEquals(rows.last("cred." + i).orElseThrow().revision(), o.revision());
                }
            } finally {
                pool.shutdownNow();
            }
            stamp(rows, 2, "V", null);
            assertEquals(FencedWrite.Kind.LOST, writes.create("cred.late", bytes("{}")).kind(), "R3: the moved fence refuses");
            assertTrue(rows.last("cred.late").isEmpty());
        }
    }
}
