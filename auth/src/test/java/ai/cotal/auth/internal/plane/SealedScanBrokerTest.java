package ai.cotal.auth.internal.plane;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import ai.cotal.auth.PlaneFixture;
import ai.cotal.core.internal.kv.LeaderGet;
import ai.cotal.core.stores.SpaceStores;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import io.nats.client.KeyValue;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * SPEC §13.12 sealed scans, closed by the leader (§6 Reads): what a consumer on a replica a few
 * writes behind delivered (a prefix of the leader's copy) is completed with the leader's later
 * messages under the prefix, a put adding or replacing its key and a marker removing it.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class SealedScanBrokerTest {
    private static final String BUCKET = "cotal_auth_alpha";
    private final PlaneFixture f = new PlaneFixture();

    @Test
    void theLeaderClosesAScanWithEveryWriteAfterTheHighestSequenceDelivered(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (Connection admin = f.admin(nats)) {
            SpaceStores.setupAuthority(admin, "alpha");
            KeyValue kv = admin.keyValue(BUCKET);
            long a = kv.put("cred.a", bytes("a1"));
            kv.put("other.x", bytes("not under the prefix"));
            kv.put("cred.b", bytes("b1"));
            kv.put("cred.a", bytes("a2"));
            kv.delete("cred.b");
            kv.put("cred.c", bytes("c1"));

            Map<String, byte[]> scanned = new LinkedHashMap<>(); // a replica that had applied only the first write
            scanned.put("cred.a", bytes("a1"));
            SealedScan.closeByLeader(new LeaderGet(admin), "KV_" + BUCKET, "$KV." + BUCKET + ".", "cred.", a, scanned);
            assertEquals(List.of("cred.a", "cred.c"), List.copyOf(scanned.keySet()), "b's marker removed it; c was added");
            assertArrayEquals(bytes("a2"), scanned.get("cred.a"), "a's later put replaced the stale value");

            Map<String, byte[]> whole = SealedScan.rows(admin, BUCKET, "cred.", "cotal-ledger-scan");
            assertEquals(List.of("cred.a", "cred.c"), List.copyOf(whole.keySet()), "a scan of the leader's own copy agrees");
        }
    }

    @Test
    void aPrefixOfFewMessagesIsReadFromTheLeaderAndOneOfManyThroughTheConsumerAlike(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (Connection admin = f.admin(nats)) {
            SpaceStores.setupAuthority(admin, "alpha");
            KeyValue kv = admin.keyValue(BUCKET);
            LeaderGet leader = new LeaderGet(admin);
            for (int i = 0; i < SealedScan.FEW; i++) {
                kv.put("few." + i, bytes("v" + i));
            }
            kv.delete("few.3");
            kv.put("few.0", bytes("again"));
            // FEW keys, one of them a marker now: FEW messages, read from the leader alone
            Map<String, byte[]> few = SealedScan.fromLeader(leader, "KV_" + BUCKET, "$KV." + BUCKET + ".", "few.");
            assertEquals(List.of("few.1", "few.2", "few.4", "few.5", "few.6", "few.7", "few.0"), List.copyOf(few.keySet()),
                    "stream order, the marker's key left out, the re-put key last");
            assertArrayEquals(bytes("again"), few.get("few.0"));
            assertEquals(few.keySet(), SealedScan.rows(admin, BUCKET, "few.", "cotal-ledger-scan").keySet());

            for (int i = 0; i <= SealedScan.FEW; i++) {
                kv.put("many." + i, bytes("m" + i));
            }
            kv.delete("many.2");
            assertNull(SealedScan.fromLeader(leader, "KV_" + BUCKET, "$KV." + BUCKET + ".", "many."),
                    "more than FEW messages: the consumer reads them");
            Map<String, byte[]> many = SealedScan.rows(admin, BUCKET, "many.", "cotal-ledger-scan");
            List<String> expected = new java.util.ArrayList<>();
            for (int i = 0; i <= SealedScan.FEW; i++) {
                if (i != 2) {
                    expected.add("many." + i);
                }
            }
            assertEquals(expected, List.copyOf(many.keySet()), "the consumer's scan: every live key, in stream order");
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
