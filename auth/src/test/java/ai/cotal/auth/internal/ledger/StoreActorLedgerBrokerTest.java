package ai.cotal.auth.internal.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.ActorTokens;
import ai.cotal.auth.ConnectAttempt;
import ai.cotal.auth.Grant;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import com.fasterxml.jackson.databind.JsonNode;
import io.nats.client.Connection;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The store ledger's rows, writes and connect half against a real broker (SPEC §13.23). */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class StoreActorLedgerBrokerTest {
    private static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";
    private static final Principal LAPTOP = Principal.of(OWNER, "laptop");
    private static final Principal PHONE = Principal.of(OWNER, "phone");
    private static final Principal AGENT = Principal.of(OWNER, "agent");
    private static final Grant CHAT = Grant.of(List.of("chat", "read"), List.of("general"), List.of("general"));
    private static final CredentialId CREDENTIAL = new CredentialId("abcdefghijklmnopqrstuvwxyz");

    private static ConnectAttempt attempt(Principal principal, List<String> scope, LifecycleUid uid) {
        return new ConnectAttempt(principal, scope, uid, CREDENTIAL);
    }

    @Test
    void aGrantIsOneClosedRowUnderItsKeyCreatedOnlyWhereNothingStands(NatsBrokers brokers) throws Exception {
        try (StoreLedgerBroker store = new StoreLedgerBroker(brokers)) {
            StoreActorLedger ledger = store.ledger();
            long before = store.lastSequence();
            ActorRow row = ledger.grantActor(LAPTOP, CHAT);
            assertEquals(before + 1, store.lastSequence(), "one message");
            var entry = store.kv.get("ledger." + LAPTOP);
            assertEquals(before + 1, entry.getRevision());
            JsonNode stored = ClosedJson.tree(ClosedJson.cotal(), entry.getValue(), "row");
            assertEquals(1, stored.get("ver").asInt());
            assertEquals("interactive", stored.get("kind").asText());
            assertEquals(OWNER, stored.get("owner").asText());
            assertEquals("laptop", stored.get("actor").asText());
            assertEquals(row.lifecycleUid().value(), stored.get("lifecycleUid").asText());
            assertFalse(stored.has("tokenHash"), "an interactive row has no token hash");
            assertEquals(row, ledger.find(LAPTOP).orElseThrow());
            assertEquals(ActorRow.Kind.INTERACTIVE, row.kind());
            assertEquals(List.of("chat", "read"), row.scope());
        }
    }

    @Test
    void aReGrantSupersedesAtTheRowsRevisionWithAFreshUid(NatsBrokers brokers) throws Exception {
        try (StoreLedgerBroker store = new StoreLedgerBroker(brokers)) {
            StoreActorLedger ledger = store.ledger();
            ActorRow first = ledger.grantActor(LAPTOP, CHAT);
            ActorRow second = ledger.grantActor(LAPTOP, Grant.of(List.of("chat"), List.of(), List.of()));
            assertNotEquals(first.lifecycleUid(), second.lifecycleUid(), "a fresh uid per grant");
            assertEquals(second, ledger.find(LAPTOP).orElseThrow());
            assertFalse(ledger.actorSourceIsLive(LAPTOP, first.lifecycleUid()), "the superseded lifecycle is not live");
            assertTrue(ledger.actorSourceIsLive(LAPTOP, second.lifecycleUid()));
            long revision = store.kv.get("ledger." + LAPTOP).getRevision();
            // a write that moved the key under a grant: the grant reads again and supersedes it
            store.kv.put("ledger." + LAPTOP, store.kv.get("ledger." + LAPTOP).getValue());
            ActorRow third = ledger.grantActor(LAPTOP, CHAT);
            assertEquals(revision + 2, store.kv.get("ledger." + LAPTOP).getRevision());
            assertEquals(third, ledger.find(LAPTOP).orElseThrow());
        }
    }

    @Test
    void aManagedGrantKeepsItsUidAndTheOtherKindIsAlreadyExists(NatsBrokers brokers) throws Exception {
        try (StoreLedgerBroker store = new StoreLedgerBroker(brokers)) {
            StoreActorLedger ledger = store.ledger();
            String hash = ActorTokens.tokenHash(ActorTokens.newActorToken());
            LifecycleUid uid = LifecycleUid.of(ActorTokens.newLifecycleUid().value(), "lifecycleUid");
            ActorRow managed = ledger.grantManagedActor(AGENT, CHAT, hash, uid);
            assertEquals(uid, managed.lifecycleUid());
            assertEquals(managed, ledger.find(AGENT).orElseThrow());
            assertEquals(hash, ledger.find(AGENT).orElseThrow().tokenHash().orElseThrow());
            ledger.grantActor(LAPTOP, CHAT);

            long before = store.lastSequence();
            CotalException interactive = assertThrows(CotalException.class, () -> ledger.grantActor(AGENT, CHAT));
            assertEquals(ErrorCode.ALREADY_EXISTS, interactive.code());
            assertEquals(AGENT + " is already in the managed ledger: revoke it there first", interactive.getMessage());
            CotalException other = assertThrows(CotalException.class, () -> ledger.grantManagedActor(LAPTOP, CHAT, hash, uid));
            assertEquals(ErrorCode.ALREADY_EXISTS, other.code());
            assertEquals(LAPTOP + " is already in the interactive ledger: revoke it there first", other.getMessage());
            CotalException badHash = assertThrows(CotalException.class,
                    () -> ledger.grantManagedActor(PHONE, CHAT, "not-hex", uid));
            assertEquals(ErrorCode.BAD_REQUEST, badHash.code());
            assertTrue(badHash.getMessage().contains("tokenHash"), badHash.getMessage());
            assertEquals(before, store.lastSequence(), "no refused grant wrote anything");
        }
    }

    @Test
    void aRevokeIsAKvDeleteAtTheRowsRevisionAndAbsentIsDone(NatsBrokers brokers) throws Exception {
        try (StoreLedgerBroker store = new StoreLedgerBroker(brokers)) {
            StoreActorLedger ledger = store.ledger();
            ActorRow row = ledger.grantActor(LAPTOP, CHAT);
            ledger.revoke(LAPTOP);
            assertEquals("DEL", store.operation("ledger." + LAPTOP), "a KV delete marker");
            assertNull(store.kv.get("ledger." + LAPTOP));
            assertTrue(ledger.find(LAPTOP).isEmpty(), "a delete reads as absent");
            assertFalse(ledger.actorSourceIsLive(LAPTOP, row.lifecycleUid()));
            long after = store.lastSequence();
            ledger.revoke(LAPTOP);
            ledger.revoke(PHONE);
            assertEquals(after, store.lastSequence(), "revoking what is absent writes nothing");

            ActorRow again = ledger.grantActor(LAPTOP, CHAT); // a grant over the delete marker
            assertEquals(again, ledger.find(LAPTOP).orElseThrow());
            assertNotEquals(row.lifecycleUid(), again.lifecycleUid());
        }
    }

    @Test
    void interactiveRowsAreTheOwnersReadableInteractiveRowsInActorOrder(NatsBrokers brokers) throws Exception {
        try (StoreLedgerBroker store = new StoreLedgerBroker(brokers)) {
            StoreActorLedger ledger = store.ledger();
            ActorRow phone = ledger.grantActor(PHONE, CHAT);
            ActorRow laptop = ledger.grantActor(LAPTOP, CHAT);
            ledger.grantActor(Principal.of(OWNER, "gone"), CHAT);
            ledger.revoke(Principal.of(OWNER, "gone"));
            ledger.grantManagedActor(AGENT, CHAT, ActorTokens.tokenHash("t"), ActorTokens.newLifecycleUid());
            ledger.grantActor(Principal.of("u_ownerownerownerownerowners", "laptop"), CHAT);
            store.kv.put("ledger." + OWNER + ".broken", "{\"ver\":2}".getBytes(StandardCharsets.UTF_8));
            store.kv.put("ledger." + OWNER + ".bad-actor", "{}".getBytes(StandardCharsets.UTF_8));
            assertEquals(List.of(laptop, phone), ledger.interactiveRows(new Owner(OWNER)));
            assertEquals(List.of(), ledger.interactiveRows(new Owner("u_zzzzzzzzzzzzzzzzzzzzzzzzzz")));
        }
    }

    @Test
    void theConnectHalfJudgesTheRowItSentForAsTheFilePlacementDoes(NatsBrokers brokers) throws Exception {
        try (StoreLedgerBroker store = new StoreLedgerBroker(brokers)) {
            StoreActorLedger ledger = store.ledger();
            ActorRow row = ledger.grantActor(LAPTOP, CHAT);
            assertEquals(row, ledger.authorizeConnect(attempt(LAPTOP, List.of("chat"), row.lifecycleUid()),
                    ledger.send(LAPTOP)));
            assertEquals(row, ledger.authorizeConnect(attempt(LAPTOP, List.of(), row.lifecycleUid()),
                    LedgerReads.NOTHING_SENT), "a pending read not its own: read now");
            assertDenied("actor " + LAPTOP + " asks for scope 'admin' beyond its grant",
                    () -> ledger.authorizeConnect(attempt(LAPTOP, List.of("admin"), row.lifecycleUid()), ledger.send(LAPTOP)));
            assertDenied("actor " + LAPTOP + " presents another lifecycle uid than its grant (re-granted or revoked)",
                    () -> ledger.authorizeConnect(attempt(LAPTOP, List.of(), ActorTokens.newLifecycleUid()),
                            ledger.send(LAPTOP)));
            assertDenied("actor " + PHONE + " is not (or no longer) granted",
                    () -> ledger.authorizeConnect(attempt(PHONE, List.of(), row.lifecycleUid()), ledger.send(PHONE)));
            ledger.revoke(LAPTOP);
            assertDenied("actor " + LAPTOP + " is not (or no longer) granted",
                    () -> ledger.authorizeConnect(attempt(LAPTOP, List.of(), row.lifecycleUid()), ledger.send(LAPTOP)));
        }
    }

    @Test
    void aRevokeTheStoreAcknowledgedIsSeenByAnotherLedgerOnAnotherConnectionAtItsNextRead(NatsBrokers brokers)
            throws Exception {
        try (StoreLedgerBroker store = new StoreLedgerBroker(brokers); Connection other = store.f.admin(store.nats)) {
            StoreActorLedger plane = store.ledger();
            StoreActorLedger replica = new StoreActorLedger(other, other, StoreLedgerBroker.BUCKET, Clock.systemUTC());
            List<ActorRow> granted = new ArrayList<>();
            for (int round = 0; round < 20; round++) {
                ActorRow row = plane.grantActor(LAPTOP, CHAT);
                granted.add(row);
                ConnectAttempt connect = attempt(LAPTOP, List.of("chat"), row.lifecycleUid());
                assertEquals(row, replica.authorizeConnect(connect, replica.send(LAPTOP)), "admitted on the other side");
                plane.revoke(LAPTOP); // acknowledged by the store when it returns
                assertDenied("actor " + LAPTOP + " is not (or no longer) granted",
                        () -> replica.authorizeConnect(connect, replica.send(LAPTOP)));
                assertTrue(replica.find(LAPTOP).isEmpty());
            }
            assertEquals(20, granted.stream().map(ActorRow::lifecycleUid).distinct().count());
        }
    }

    @Test
    void aGrantOverTheRowBoundIsBadRequestAndWritesNothing(NatsBrokers brokers) throws Exception {
        try (StoreLedgerBroker store = new StoreLedgerBroker(brokers)) {
            List<String> scope = new ArrayList<>();
            for (int i = 0; i < 600; i++) {
                scope.add(String.format("s%03d", i) + "x".repeat(120));
            }
            long before = store.lastSequence();
            CotalException big = assertThrows(CotalException.class,
                    () -> store.ledger().grantActor(LAPTOP, Grant.of(scope, List.of(), List.of())));
            assertEquals(ErrorCode.BAD_REQUEST, big.code());
            assertTrue(big.getMessage().contains("grant"), big.getMessage());
            assertEquals(before, store.lastSequence());
        }
    }

    @Test
    void aReadThatCannotBeAnsweredIsUnavailableNeverAnAnswer(NatsBrokers brokers) throws Exception {
        try (StoreLedgerBroker store = new StoreLedgerBroker(brokers)) {
            ActorRow row = store.ledger().grantActor(LAPTOP, CHAT);
            Connection closed = store.f.admin(store.nats);
            StoreActorLedger ledger = new StoreActorLedger(store.admin, closed, StoreLedgerBroker.BUCKET, Clock.systemUTC());
            closed.close();
            CotalException find = assertThrows(CotalException.class, () -> ledger.find(LAPTOP));
            assertEquals(ErrorCode.UNAVAILABLE, find.code());
            assertEquals("the ledger row of " + LAPTOP + " cannot be read now; retry shortly", find.getMessage());
            CotalException connect = assertThrows(CotalException.class, () -> ledger.authorizeConnect(
                    attempt(LAPTOP, List.of(), row.lifecycleUid()), ledger.send(LAPTOP)));
            assertEquals(ErrorCode.UNAVAILABLE, connect.code(), "not an unreadable row, and never admitted");
            assertEquals(find.getMessage(), connect.getMessage());
            CotalException rows = assertThrows(CotalException.class, () -> ledger.interactiveRows(new Owner(OWNER)));
            assertEquals(ErrorCode.UNAVAILABLE, rows.code(), "an outage is no owner without rows");
            assertFalse(ledger.actorSourceIsLive(LAPTOP, row.lifecycleUid()));
        }
    }

    static void assertDenied(String message, org.junit.jupiter.api.function.Executable call) {
        CotalException e = assertThrows(CotalException.class, call);
        assertEquals(ErrorCode.PERMISSION_DENIED, e.code(), e.getMessage());
        assertEquals(message, e.getMessage());
    }
}
