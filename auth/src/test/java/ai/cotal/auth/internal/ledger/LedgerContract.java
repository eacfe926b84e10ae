package ai.cotal.auth.internal.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.ActorTokens;
import ai.cotal.auth.ConnectAttempt;
import ai.cotal.auth.Grant;
import ai.cotal.auth.IdpPin;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The answers and messages both placements of the ledger give alike (SPEC §13.23): grants of both
 * kinds, revoke, find, an owner's interactive rows, the other kind refused, a fresh uid per grant,
 * the connect half, and the pin's no-op and re-pin refusal.
 */
abstract class LedgerContract {
    static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";
    static final Principal LAPTOP = Principal.of(OWNER, "laptop");
    static final Principal PHONE = Principal.of(OWNER, "phone");
    static final Principal AGENT = Principal.of(OWNER, "agent");
    static final Grant CHAT = Grant.of(List.of("chat", "read"), List.of("general"), List.of("general"));

    /** A fresh, empty ledger of the placement under test. */
    abstract LedgerBackend ledger() throws Exception;

    abstract Placement placement();

    private static CotalException refusal(Runnable call) {
        return assertThrows(CotalException.class, call::run);
    }

    @Test
    void itsPlacementIsTheOneItNames() throws Exception {
        assertEquals(placement(), ledger().placement());
    }

    @Test
    void aGrantReadsBackAndEveryGrantMintsAFreshUid() throws Exception {
        LedgerBackend ledger = ledger();
        ActorRow first = ledger.grantActor(LAPTOP, CHAT);
        assertEquals(Optional.of(first), ledger.find(LAPTOP));
        assertEquals(ActorRow.Kind.INTERACTIVE, first.kind());
        assertEquals(List.of("chat", "read"), first.scope());
        ActorRow again = ledger.grantActor(LAPTOP, CHAT);
        assertNotEquals(first.lifecycleUid(), again.lifecycleUid(), "a re-grant supersedes with a fresh uid");
        assertEquals(Optional.of(again), ledger.find(LAPTOP));
        assertTrue(ledger.actorSourceIsLive(LAPTOP, again.lifecycleUid()));
        assertTrue(!ledger.actorSourceIsLive(LAPTOP, first.lifecycleUid()), "the superseded uid is not live");
    }

    @Test
    void aManagedGrantKeepsItsTokenHashAndUidAndTheOtherKindIsRefused() throws Exception {
        LedgerBackend ledger = ledger();
        String hash = ActorTokens.tokenHash(ActorTokens.newActorToken());
        LifecycleUid uid = ActorTokens.newLifecycleUid();
        ActorRow managed = ledger.grantManagedActor(AGENT, CHAT, hash, uid);
        assertEquals(ActorRow.Kind.MANAGED, managed.kind());
        assertEquals(Optional.of(hash), ledger.find(AGENT).orElseThrow().tokenHash());
        assertEquals(uid, ledger.find(AGENT).orElseThrow().lifecycleUid());
        CotalException other = refusal(() -> ledger.grantActor(AGENT, CHAT));
        assertEquals(ErrorCode.ALREADY_EXISTS, other.code());
        assertEquals(AGENT + " is already in the managed ledger: revoke it there first", other.getMessage());
        ledger.grantActor(LAPTOP, CHAT);
        CotalException back = refusal(() -> ledger.grantManagedActor(LAPTOP, CHAT, hash, ActorTokens.newLifecycleUid()));
        assertEquals(ErrorCode.ALREADY_EXISTS, back.code());
        assertEquals(LAPTOP + " is already in the interactive ledger: revoke it there first", back.getMessage());
    }

    @Test
    void aRevokeRemovesTheRowAndRevokingNothingIsDone() throws Exception {
        LedgerBackend ledger = ledger();
        ledger.grantActor(LAPTOP, CHAT);
        ledger.revoke(LAPTOP);
        assertEquals(Optional.empty(), ledger.find(LAPTOP));
        ledger.revoke(LAPTOP); // nothing there: done
        ledger.revoke(PHONE);
        assertEquals(Optional.empty(), ledger.find(PHONE));
        ActorRow regranted = ledger.grantActor(LAPTOP, CHAT);
        assertEquals(Optional.of(regranted), ledger.find(LAPTOP), "a revoked principal is granted anew");
    }

    @Test
    void anOwnersInteractiveRowsAreInActorOrderWithoutManagedOnes() throws Exception {
        LedgerBackend ledger = ledger();
        ActorRow phone = ledger.grantActor(PHONE, CHAT);
        ActorRow laptop = ledger.grantActor(LAPTOP, CHAT);
        ledger.grantManagedActor(AGENT, CHAT, ActorTokens.tokenHash(ActorTokens.newActorToken()), ActorTokens.newLifecycleUid());
        ledger.grantActor(Principal.of("u_bbcdefghijklmnopqrstuvwxyz", "laptop"), CHAT);
        assertEquals(List.of(laptop, phone), ledger.interactiveRows(new Owner(OWNER)));
        assertEquals(List.of(), ledger.interactiveRows(new Owner("u_zzzzzzzzzzzzzzzzzzzzzzzzzz")));
    }

    @Test
    void theConnectHalfAdmitsTheGrantAndRefusesAfterTheRevokeInOneWording() throws Exception {
        LedgerBackend ledger = ledger();
        ActorRow row = ledger.grantActor(LAPTOP, CHAT);
        CredentialId credential = new CredentialId("abcdefghijklmnopqrstuvwxyz");
        ConnectAttempt attempt = new ConnectAttempt(LAPTOP, List.of("chat"), row.lifecycleUid(), credential);
        assertEquals(row, ledger.authorizeConnect(attempt, ledger.send(LAPTOP)));
        CotalException wider = refusal(() -> ledger.authorizeConnect(new ConnectAttempt(LAPTOP, List.of("admin"),
                row.lifecycleUid(), credential), ledger.send(LAPTOP)));
        assertEquals(ErrorCode.PERMISSION_DENIED, wider.code());
        ledger.revoke(LAPTOP);
        CotalException revoked = refusal(() -> ledger.authorizeConnect(attempt, ledger.send(LAPTOP)));
        assertEquals(ErrorCode.PERMISSION_DENIED, revoked.code());
        assertEquals(expectedRevokedMessage(), revoked.getMessage());
        CotalException notSent = refusal(() -> ledger.authorizeConnect(attempt, LedgerReads.NOTHING_SENT));
        assertEquals(revoked.getMessage(), notSent.getMessage(), "nothing sent: the row is read then");
    }

    /** The connect half's refusal of a revoked principal, the same on both placements. */
    private static String expectedRevokedMessage() {
        return "actor " + LAPTOP + " is not (or no longer) granted";
    }

    @Test
    void aPinIsANoOpForTheSameProviderAndRefusesAnother() throws Exception {
        LedgerBackend ledger = ledger();
        assertEquals(Optional.empty(), ledger.idpPin());
        IdpPin pin = ledger.pinStock("https://idp.example.com/tenant/");
        assertEquals(IdpPin.stock("https://idp.example.com/tenant"), pin, "one rule makes the pin");
        assertEquals(Optional.of(pin), ledger.idpPin());
        assertEquals(pin, ledger.pinStock("https://idp.example.com/tenant"), "the same provider again: a no-op");
        CotalException other = refusal(() -> ledger.pinStock("https://other.example.com"));
        assertEquals(ErrorCode.FAILED_PRECONDITION, other.code());
        assertTrue(other.getMessage().endsWith("the space is pinned to https://idp.example.com/tenant; re-pinning to"
                + " another identity provider is refused"), other.getMessage());
        CotalException oidc = refusal(() -> ledger.pinOidc("https://issuer.example.com", "client", List.of()));
        assertEquals(ErrorCode.FAILED_PRECONDITION, oidc.code(), "another kind is another provider");
        assertEquals(Optional.of(pin), ledger.idpPin(), "no refusal rewrote the pin");
        CotalException bad = refusal(() -> ledger.pinStock("ftp://idp.example.com"));
        assertEquals(ErrorCode.BAD_REQUEST, bad.code());
    }
}
