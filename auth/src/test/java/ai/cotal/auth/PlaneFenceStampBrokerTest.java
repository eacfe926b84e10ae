package ai.cotal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nats.client.Connection;
import io.nats.client.api.KeyValueEntry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The acquisition's fence stamps on the real broker (SPEC §13.13 "Acquisition", "The row, v2"):
 * an open writes the claim row v2 together with the auth fence rows, restamps the records and
 * admission stores, never lowers a fence, and reads a v1 row as v2 without a lease.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class PlaneFenceStampBrokerTest {
    private static final List<String> FENCED = List.of("cotal_auth_alpha", "cotal_records_alpha", "cotal_admission_alpha");
    private final PlaneFixture f = new PlaneFixture();

    @TempDir
    Path stateDir;

    private static JsonNode row(Connection admin, String bucket, String key) throws Exception {
        KeyValueEntry entry = admin.keyValue(bucket).get(key);
        return entry == null ? null : ClosedJson.tree(ClosedJson.cotal(), entry.getValue(), key);
    }

    private static void assertStamped(Connection admin, long generation, String claimId) throws Exception {
        for (String bucket : FENCED) {
            for (int k = 0; k < 8; k++) {
                JsonNode fence = row(admin, bucket, "plane.fence." + k);
                assertEquals(1, fence.path("v").asInt(), bucket + " fence " + k);
                assertEquals(generation, fence.path("generation").asLong(), bucket + " fence " + k);
                assertEquals(claimId, fence.path("claimId").asText(), bucket + " fence " + k);
            }
        }
    }

    private void put(NatsBroker nats, String bucket, String key, String json) throws Exception {
        try (Connection admin = f.admin(nats)) {
            admin.keyValue(bucket).put(key, json.getBytes(StandardCharsets.UTF_8));
        }
    }

    @Test
    void everyOpenStampsTheThreeFencedStoresWithItsGenerationNextToAV2Row(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        AuthAuthorityPlane.open(f.options(nats, stateDir).build()).close();
        try (Connection admin = f.admin(nats)) {
            JsonNode claim = row(admin, "cotal_auth_alpha", "plane");
            assertEquals(2, claim.path("v").asInt(), "the claim row is v2");
            assertTrue(claim.path("lease").isMissingNode(), "a proof-mode holder writes no lease");
            assertStamped(admin, 1, claim.path("claimId").asText());
        }
        try (AuthAuthorityPlane second = AuthAuthorityPlane.open(f.options(nats, stateDir).build())) {
            assertEquals(2, second.claim().generation());
            try (Connection admin = f.admin(nats)) {
                assertStamped(admin, 2, row(admin, "cotal_auth_alpha", "plane").path("claimId").asText());
            }
        }
    }

    @Test
    void aRestampNeverLowersAFenceAndTheOpenRefusesLost(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        AuthAuthorityPlane.open(f.options(nats, stateDir).build()).close();
        put(nats, "cotal_admission_alpha", "plane.fence.3", "{\"v\":1,\"generation\":99,\"claimId\":\"ULATER\"}");
        PlaneClaimRefusal lost = assertThrows(PlaneClaimRefusal.class,
                () -> AuthAuthorityPlane.open(f.options(nats, stateDir).build()));
        assertEquals(PlaneClaimRefusal.Reason.LOST, lost.reason(), lost.getMessage());
        assertTrue(lost.getMessage().contains("plane.fence.3") && lost.getMessage().contains("99"), lost.getMessage());
        try (Connection admin = f.admin(nats)) {
            JsonNode fence = row(admin, "cotal_admission_alpha", "plane.fence.3");
            assertEquals(99, fence.path("generation").asLong(), "the later fence stays");
            assertEquals(1, row(admin, "cotal_admission_alpha", "plane.fence.0").path("generation").asLong(),
                    "the refused restamp wrote none of the admission store's rows (one batch)");
            assertEquals(2, row(admin, "cotal_records_alpha", "plane.fence.0").path("generation").asLong(),
                    "records was stamped first, in order");
            assertEquals("released", row(admin, "cotal_auth_alpha", "plane").path("state").asText(),
                    "the open unwound and released its claim");
        }
    }

    @Test
    void aV1RowIsReadAsV2WithoutALeaseAndALeaseIsParsedClosed(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        AuthAuthorityPlane.open(f.options(nats, stateDir).build()).close();
        ObjectNode released;
        try (Connection admin = f.admin(nats)) {
            released = (ObjectNode) row(admin, "cotal_auth_alpha", "plane");
        }
        put(nats, "cotal_auth_alpha", "plane", released.deepCopy().put("v", 1).toString());
        try (AuthAuthorityPlane fromV1 = AuthAuthorityPlane.open(f.options(nats, stateDir).build())) {
            assertEquals(2, fromV1.claim().generation(), "a released v1 row is taken as a v2 row without a lease");
        }
        try (Connection admin = f.admin(nats)) {
            released = (ObjectNode) row(admin, "cotal_auth_alpha", "plane");
        }
        ObjectNode leased = released.deepCopy();
        leased.putObject("lease").put("millis", 10_000).put("renewal", 4);
        put(nats, "cotal_auth_alpha", "plane", leased.toString());
        try (AuthAuthorityPlane fromLease = AuthAuthorityPlane.open(f.options(nats, stateDir).build())) {
            assertEquals(3, fromLease.claim().generation(), "a released v2 row with a lease is read");
        }
        try (Connection admin = f.admin(nats)) {
            released = (ObjectNode) row(admin, "cotal_auth_alpha", "plane");
        }
        for (String bad : List.of(
                released.deepCopy().put("v", 1).set("lease", leasedNode(10_000, 0)).toString(),
                released.deepCopy().set("lease", leasedNode(4_999, 0)).toString(),
                released.deepCopy().set("lease", leasedNode(10_000, -1)).toString(),
                released.deepCopy().set("lease", ((ObjectNode) leasedNode(10_000, 0)).put("extra", 1)).toString(),
                released.deepCopy().put("v", 3).toString())) {
            put(nats, "cotal_auth_alpha", "plane", bad);
            PlaneClaimRefusal corrupt = assertThrows(PlaneClaimRefusal.class,
                    () -> AuthAuthorityPlane.open(f.options(nats, stateDir).build()), bad);
            assertEquals(PlaneClaimRefusal.Reason.CORRUPT, corrupt.reason(), bad);
        }
        try (Connection admin = f.admin(nats)) {
            assertFalse(row(admin, "cotal_auth_alpha", "plane").path("v").asInt() == 2, "a corrupt row is left as it is");
        }
    }

    private static JsonNode leasedNode(long millis, long renewal) {
        return ClosedJson.cotal().createObjectNode().put("millis", millis).put("renewal", renewal);
    }
}
