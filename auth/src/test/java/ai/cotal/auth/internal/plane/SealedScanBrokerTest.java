package ai.cotal.auth.internal.plane;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

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

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
