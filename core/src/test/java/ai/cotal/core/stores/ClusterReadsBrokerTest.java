package ai.cotal.core.stores;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.BrokerClients;
import ai.cotal.core.BrokerClients.Client;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.internal.kv.RowStore;
import ai.cotal.core.issued.KvSourceLiveness;
import ai.cotal.core.issued.Source;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.jwt.Permission;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.testbroker.ClusterMember;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.testbroker.NatsCluster;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.StreamInfo;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * SPEC §6 Reads on a real three-member cluster: each authority store's {@code allow_direct} is the
 * table's, and a row read that a decision rests on goes to the stream's leader even on a store
 * that allows direct gets. The reader below may not send a direct get at all (the broker refuses
 * it), is connected to a follower, and still reads every write of its own at once.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class ClusterReadsBrokerTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String RECORDS = "cotal_records_alpha";
    private final Clock clock = Clock.systemUTC();
    private final BrokerAuth broker = BrokerAuth.create("cluster", clock);
    private final SpaceAccountAuth space = SpaceAccountAuth.create(broker, "alpha", clock);

    private String config(ClusterMember m) {
        return ServerConfig.render(broker, List.of(space), ServerConfigOptions.builder().transport(Transport.plaintext())
                .storeDir(m.storeDir()).cluster(BrokerClients.cluster(m)).build());
    }

    @Test
    void rowReadsGoToTheLeaderAndSeeTheirOwnWritesEvenOnAStoreWithDirectGets(NatsBrokers brokers) throws Exception {
        NatsCluster cluster = brokers.startCluster(this::config);
        cluster.awaitMetaLeader(WAIT);
        cluster.awaitAccountJetStream(i -> BrokerClients.plain(cluster.member(i), BrokerClients.unrestricted(space)), WAIT);
        String recordsLeader;
        try (Client admin = BrokerClients.connect(cluster.member(0), BrokerClients.unrestricted(space))) {
            SpaceStores.setupAuthority(admin.connection(), "alpha", StoreReplicas.of(3));
            JetStreamManagement jsm = admin.connection().jetStreamManagement();
            Map<String, Boolean> direct = Map.of("auth", false, "records", true, "issued", false, "accepted", true,
                    "admission", false, "channels", true);
            for (Map.Entry<String, Boolean> store : direct.entrySet()) {
                StreamInfo info = jsm.getStreamInfo("KV_cotal_" + store.getKey() + "_alpha");
                assertEquals(store.getValue(), info.getConfiguration().getAllowDirect(), store.getKey() + " allow_direct");
                assertEquals(3, info.getConfiguration().getReplicas(), store.getKey());
            }
            recordsLeader = jsm.getStreamInfo("KV_" + RECORDS).getClusterInfo().getLeader();
        }

        int follower = (cluster.indexOf(recordsLeader) + 1) % 3;
        try (Client reader = BrokerClients.connect(cluster.member(follower), leaderOnlyReader())) {
            RowStore rows = new RowStore(reader.connection(), RECORDS);
            for (int i = 0; i < 100; i++) {
                byte[] value = ("row-" + i).getBytes(StandardCharsets.UTF_8);
                long revision = rows.create("probe." + i, value).orElseThrow();
                RowStore.Row read = rows.last("probe." + i).orElseThrow(() -> new AssertionError("a write not read back"));
                assertEquals(revision, read.revision());
                assertArrayEquals(value, read.data());
            }
            KvSourceLiveness sources = new KvSourceLiveness(reader.connection());
            Source source = new Source("alpha", RECORDS, "probe.0");
            assertTrue(sources.isLive(source));
            reader.connection().jetStream().publish(NatsMessage.builder().subject("$KV." + RECORDS + ".probe.0")
                    .headers(new Headers().put("KV-Operation", "DEL")).data(new byte[0]).build());
            assertFalse(sources.isLive(source), "a source deleted a moment ago is gone at once");

            assertFalse(reader.violation().isDone(), "no read was a direct get: " + reader.violation().getNow(""));
            assertThrows(Exception.class, () -> reader.connection().keyValue(RECORDS).get("probe.1"),
                    "the KV client's get goes direct on this store, which this reader may not send");
            assertTrue(reader.violation().get(5, java.util.concurrent.TimeUnit.SECONDS).contains("DIRECT.GET"),
                    "the broker refused the direct get");
        }
        assertNotEquals(cluster.serverName(follower), recordsLeader);
    }

    /** Writes to the records bucket, reads it only by {@code STREAM.MSG.GET}: no {@code DIRECT.GET}. */
    private Creds leaderOnlyReader() {
        Identity identity = Identity.create();
        Permission publish = Permission.allow(List.of("$KV." + RECORDS + ".>", "$JS.API.STREAM.MSG.GET.KV_" + RECORDS,
                "$JS.API.STREAM.INFO.KV_" + RECORDS));
        String jwt = NatsJwt.encode(ClaimSet.of(identity.id(), "leader-only-reader", UserClaim.of(publish,
                Permission.allow(List.of("_INBOX_" + identity.id() + ".>")), space.accountPublicKey(), null), clock.instant()), space.signing());
        return new Creds(jwt, identity);
    }
}
