package ai.cotal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.CredentialId;
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
        AuthAuthorityPlane old = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
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
}
