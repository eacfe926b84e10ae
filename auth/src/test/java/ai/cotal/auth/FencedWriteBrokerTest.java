package ai.cotal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.internal.kv.FenceLanes;
import ai.cotal.core.internal.kv.FenceRows;
import ai.cotal.core.internal.kv.FencedWrite;
import ai.cotal.core.internal.kv.RowStore;
import ai.cotal.auth.internal.manager.ServingRecords;
import ai.cotal.core.id.Principal;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import io.nats.client.api.KeyValueOperation;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fenced writes across a takeover (SPEC §13.13 "Fenced writes"), credential rows first: a plane
 * whose claim a later plane took keeps running, and the broker refuses its mint and its revoke
 * (the fence moved: {@code unavailable}, the plane fences), the rows unchanged; the new holder's
 * same writes land.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class FencedWriteBrokerTest {
    private static final java.time.Duration ANSWER = java.time.Duration.ofSeconds(5);
    private static final Principal LAPTOP = Principal.of("u_ownerownerownerownerowners", "laptop");
    private final PlaneFixture f = new PlaneFixture();

    @TempDir
    Path stateDir;

    /** An oracle that proves every tuple gone: the takeover of a plane that is in fact still running. */
    private static LivenessOracle.Answer gone(List<ConnTuple> tuples) {
        Map<ConnTuple, LivenessOracle.State> states = new HashMap<>();
        tuples.forEach(t -> states.put(t, LivenessOracle.State.GONE));
        return new LivenessOracle.Answer(states, true);
    }

    private static long lastSequence(Connection admin) throws Exception {
        return admin.jetStreamManagement().getStreamInfo("KV_cotal_auth_alpha").getStreamState().getLastSequence();
    }

    @Test
    void afterATakeoverTheOldClaimsCredentialWritesAreRefusedByTheBrokerAndTheNewClaimsLand(NatsBrokers brokers)
            throws Exception {
        NatsBroker nats = brokers.start(f::config);
        AuthAuthorityPlane old = ai.cotal.auth.internal.plane.AuthorityPlaneImpl.open(f.options(nats, stateDir).build(), true);
        ActorRow row = old.ledger().grantActor(LAPTOP, Grant.of(List.of("chat"), List.of("general"), List.of()));
        CredentialId minted = old.credentials().mint(LAPTOP, row.lifecycleUid()).id();
        try (Connection admin = f.admin(nats);
                AuthAuthorityPlane next = AuthAuthorityPlane.open(f.options(nats, stateDir)
                        .livenessOracle(FencedWriteBrokerTest::gone).build())) {
            assertEquals(2, next.claim().generation(), "the takeover");
            long before = lastSequence(admin);

            CotalException mint = assertThrows(CotalException.class, () -> old.credentials().mint(LAPTOP, row.lifecycleUid()));
            assertEquals(ErrorCode.UNAVAILABLE, mint.code(), mint.getMessage());
            assertTrue(mint.getMessage().contains("lost its claim"), mint.getMessage());
            String why = old.fenced().get(10, TimeUnit.SECONDS);
            assertTrue(why.contains("later plane's fence"), why);
            CotalException revoke = assertThrows(CotalException.class, () -> old.credentials().revoke(minted));
            assertEquals(ErrorCode.UNAVAILABLE, revoke.code(), revoke.getMessage());
            assertEquals(before, lastSequence(admin), "the broker stored nothing of the old claim's writes");
            assertEquals(KeyValueOperation.PUT, admin.keyValue("cotal_auth_alpha").get("cred." + minted.value())
                    .getOperation(), "the row unchanged");

            next.credentials().revoke(minted);
            List<io.nats.client.api.KeyValueEntry> history = admin.keyValue("cotal_auth_alpha").history("cred." + minted.value());
            assertEquals(KeyValueOperation.DELETE, history.get(history.size() - 1).getOperation(), "the new claim's revoke lands");
            CredentialId fresh = next.credentials().mint(LAPTOP, row.lifecycleUid()).id();
            assertEquals(KeyValueOperation.PUT, admin.keyValue("cotal_auth_alpha").get("cred." + fresh.value())
                    .getOperation(), "the new claim's mint lands");
        }
        assertThrows(PlaneClaimRefusal.class, old::close, "the old plane lost its claim");
    }

    /** Stamps the store's 8 fence rows with {@code generation} as an acquisition would, and reads its lanes back. */
    private static FenceLanes stamp(RowStore rows, long generation, String claimId) {
        for (int k = 0; k < FenceRows.LANES; k++) {
            String key = FenceRows.fenceKey(k);
            long at = rows.last(key).map(RowStore.Row::revision).orElse(0L);
            rows.compareAndSet(key, FenceRows.write(FenceRows.Fence.of(generation, claimId)), at).orElseThrow();
        }
        return FenceLanes.readBack(rows, generation, claimId, null);
    }

    /**
     * The serving gates' writes (the plane's registration refuses an old plane's gate write before
     * it is sent, so the broker's fence is shown on the gate rows directly): once a later
     * generation stamped the auth store, the old lanes' gate write is refused by the broker and
     * writes nothing; the new lanes' lands.
     */
    @Test
    void gateWritesAreFencedAndTheOldLanesWriteNothingOnceALaterGenerationStamped(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        InstanceId iid;
        ServingGate gate;
        String claimId;
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build())) {
            TestManager manager = TestManager.forOwner(plane, nats, LAPTOP.owner().value());
            manager.close();
            iid = new InstanceId(manager.instanceId);
            gate = plane.managers().gate(iid).orElseThrow();
        }
        try (Connection admin = f.admin(nats)) {
            claimId = ai.cotal.core.internal.json.ClosedJson.tree(ai.cotal.core.internal.json.ClosedJson.cotal(),
                    admin.keyValue("cotal_auth_alpha").get("plane").getValue(), "plane").path("claimId").asText();
            RowStore auth = new RowStore(admin, "cotal_auth_alpha");
            RowStore records = new RowStore(admin, "cotal_records_alpha");
            FenceLanes oldAuth = FenceLanes.readBack(auth, 1, claimId, null);
            FenceLanes oldRecords = FenceLanes.readBack(records, 1, claimId, null);
            ServingRecords old = new ServingRecords("alpha", admin, admin, new FencedWrite(admin, auth, oldAuth, ANSWER),
                    new FencedWrite(admin, records, oldRecords, ANSWER));
            ServingGate frozen = new ServingGate(gate.endpoint(), gate.instanceId(), ServingGate.State.FROZEN,
                    gate.principal(), gate.processEpoch(), gate.registrationRevision(), gate.updatedAt(), 0);

            FenceLanes nextAuth = stamp(auth, 2, "UNEXT");
            long before = lastSequence(admin);
            CotalException refused = assertThrows(CotalException.class, () -> old.replaceGate(frozen, gate.revision()));
            assertEquals(ErrorCode.UNAVAILABLE, refused.code(), refused.getMessage());
            assertTrue(refused.getMessage().contains("lost its claim"), refused.getMessage());
            assertTrue(oldAuth.lost(), "the old lanes are lost");
            assertEquals(before, lastSequence(admin), "the broker stored nothing of the old lanes' gate write");
            assertEquals(gate.revision(), old.gate(gate.endpoint(), gate.instanceId()).orElseThrow().revision(),
                    "the gate unchanged");

            ServingRecords next = new ServingRecords("alpha", admin, admin, new FencedWrite(admin, auth, nextAuth, ANSWER),
                    new FencedWrite(admin, records, oldRecords, ANSWER));
            long landed = next.replaceGate(frozen, gate.revision()).orElseThrow();
            assertEquals(ServingGate.State.FROZEN, next.gate(gate.endpoint(), gate.instanceId()).orElseThrow().state());
            assertEquals(landed, next.gate(gate.endpoint(), gate.instanceId()).orElseThrow().revision(),
                    "the new lanes' gate write lands");
            assertTrue(next.replaceGate(frozen, gate.revision()).isEmpty(), "its own condition still holds: moved");
        }
    }
}
