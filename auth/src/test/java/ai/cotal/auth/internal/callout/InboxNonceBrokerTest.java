package ai.cotal.auth.internal.callout;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.Grant;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.internal.callout.AuthCallout;
import ai.cotal.auth.InboxNonce;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #16.3: an inbox nonce is bound to its principal (SPEC §13.16). Another owner that copies a
 * victim's nonce from a reply subject is refused by the broker and never receives the victim's
 * replies; the victim under its own nonce, and again after a reconnect, is admitted.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class InboxNonceBrokerTest {
    private static final String OTHER_OWNER = "u_bbbbbbbbbbbbbbbbbbbbbbbbbb";

    private final CalloutFixture f = new CalloutFixture();

    @TempDir
    Path stateDir;

    @Test
    void anotherOwnerUnderTheVictimsNonceIsRefusedAndNeverGetsItsReplies(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = f.open(nats, stateDir); AuthCallout callout = f.responder(nats, plane);
             Connection admin = f.plane.admin(nats)) {
            String victim = f.bearer(plane, "laptop", List.of("general"), List.of(), Duration.ofMinutes(5));
            ActorRow row = plane.ledger().grantActor(Principal.of(OTHER_OWNER, "laptop"),
                    Grant.of(List.of("chat"), List.of(), List.of()));
            String attacker = plane.bearers().issue(BearerRequest.member(Principal.of(OTHER_OWNER, "laptop"), List.of("chat"),
                    row.lifecycleUid(), plane.credentials().mint(Principal.of(OTHER_OWNER, "laptop"), row.lifecycleUid()).id(),
                    Duration.ofMinutes(5)));
            String victimNonce = InboxNonce.forPrincipal(Principal.of(CalloutFixture.OWNER, "laptop"));
            String subject = "cotal.alpha.chat." + CalloutFixture.OWNER + ".laptop.general";
            Dispatcher responder = admin.createDispatcher(m -> admin.publish(m.getReplyTo(), m.getData()));
            responder.subscribe(subject);
            admin.flush(Duration.ofSeconds(5));

            try (CalloutFixture.Client a = f.connect(nats, victim, victimNonce)) {
                Message reply = a.connection().request(subject, "ping".getBytes(StandardCharsets.UTF_8),
                        Duration.ofSeconds(5));
                assertTrue(reply.getSubject().startsWith(InboxNonce.inboxPrefix(victimNonce) + "."), reply.getSubject());

                long mark = nats.log().mark();
                Exception refused = f.refused(nats, attacker, victimNonce);
                assertTrue(refused.getMessage().contains("Authorization Violation"), refused.getMessage());
                assertTrue(nats.log().await(mark, line -> line.contains("the inbox nonce is not this principal's"),
                        Duration.ofSeconds(5)).isPresent(), "the broker logs the signed reason:\n" + nats.logTail(50));

                // Under its own nonce the other owner is admitted, but the broker refuses it the victim's inbox.
                try (CalloutFixture.Client b = f.connect(nats, attacker, InboxNonce.forPrincipal(Principal.of(OTHER_OWNER, "laptop")))) {
                    b.connection().subscribe(InboxNonce.inboxPrefix(victimNonce) + ".>");
                    String violation = b.violation().get(5, TimeUnit.SECONDS);
                    assertTrue(violation.contains("Subscription") && violation.contains(victimNonce), violation);
                }
            }
            // The same principal reconnecting under the same nonce is admitted again.
            try (CalloutFixture.Client again = f.connect(nats, victim, victimNonce)) {
                assertEquals(Connection.Status.CONNECTED, again.connection().getStatus());
                again.connection().request(subject, "ping".getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(5));
            }
            // A nonce of another actor of the same owner is not this actor's either.
            f.refused(nats, victim, InboxNonce.forPrincipal(Principal.of(CalloutFixture.OWNER, "phone")));
        }
    }

    @Test
    void theNonceIsTheTagOfItsPrincipalAndARandomPart() {
        String nonce = InboxNonce.forPrincipal(Principal.of(CalloutFixture.OWNER, "laptop"));
        assertTrue(nonce.matches("[a-z2-7]{16}-[A-Za-z0-9_-]{16}"), nonce);
        assertTrue(InboxNonce.belongsTo(nonce, Principal.of(CalloutFixture.OWNER, "laptop")));
        assertFalse(InboxNonce.belongsTo(nonce, Principal.of(OTHER_OWNER, "laptop")));
        assertFalse(InboxNonce.belongsTo(nonce, Principal.of(CalloutFixture.OWNER, "phone")));
        assertFalse(InboxNonce.belongsTo(InboxNonce.tag(Principal.of(CalloutFixture.OWNER, "laptop")) + "-short", Principal.of(CalloutFixture.OWNER, "laptop")), "the random part is at least 8 characters");
        assertFalse(InboxNonce.belongsTo(InboxNonce.tag(Principal.of(CalloutFixture.OWNER, "laptop")) + "_abcdefgh", Principal.of(CalloutFixture.OWNER, "laptop")), "the tag ends with a dash");
        assertFalse(InboxNonce.belongsTo(InboxNonce.of(Principal.of(CalloutFixture.OWNER, "laptop"), "x".repeat(103)) + "x",
                Principal.of(CalloutFixture.OWNER, "laptop")), "at most 120 characters");
        assertEquals(120, InboxNonce.of(Principal.of(CalloutFixture.OWNER, "laptop"), "x".repeat(103)).length());
        // two principals have different tags, and only owners (u_ and 26 of [a-z2-7]) get one
        assertFalse(InboxNonce.tag(Principal.of(CalloutFixture.OWNER, "b_c")).equals(InboxNonce.tag(Principal.of(OTHER_OWNER, "b_c"))));
        assertEquals(ErrorCode.BAD_REQUEST, assertThrows(CotalException.class, () -> InboxNonce.tag(Principal.of("a_b", "c"))).code());
        CotalException bad = assertThrows(CotalException.class, () -> InboxNonce.of(Principal.of(CalloutFixture.OWNER, "laptop"), "a.b>c*d"));
        assertEquals(ErrorCode.BAD_REQUEST, bad.code());
        assertTrue(bad.getMessage().startsWith("random:"), bad.getMessage());
        assertEquals(ErrorCode.BAD_REQUEST, assertThrows(CotalException.class,
                () -> InboxNonce.tag(Principal.of("u_x.y", "laptop"))).code());
    }

    @Test
    void theIssuedViewsAcceptedRowIsBoundThroughTheNonce(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = f.open(nats, stateDir); AuthCallout callout = f.responder(nats, plane)) {
            ai.cotal.auth.TestManager.forOwner(plane, nats, CalloutFixture.OWNER).close(); // candidates (SPEC §14.4)
            ai.cotal.auth.TestManager.forOwner(plane, nats, OTHER_OWNER).close();
            String victim = caller(plane, CalloutFixture.OWNER);
            String attacker = caller(plane, OTHER_OWNER);
            String nonce = InboxNonce.forPrincipal(Principal.of(CalloutFixture.OWNER, "laptop"));
            String token = ai.cotal.core.issued.IssuedAuthority.acceptedToken(nonce);
            try (CalloutFixture.Client a = f.connect(nats, victim, nonce)) {
                assertEquals(Connection.Status.CONNECTED, a.connection().getStatus());
            }
            String generation = plane.issuedCallers().resolve(token).ref().generation();
            long mark = nats.log().mark();
            f.refused(nats, attacker, nonce);
            assertTrue(nats.log().await(mark, line -> line.contains("the inbox nonce is not this principal's"),
                    Duration.ofSeconds(5)).isPresent(), "refused by the nonce check, before the accepted row is read:\n"
                    + nats.logTail(50));
            assertEquals(CalloutFixture.OWNER, plane.issuedCallers().resolve(token).ref().owner());
            assertEquals(generation, plane.issuedCallers().resolve(token).ref().generation());
            try (CalloutFixture.Client again = f.connect(nats, victim, nonce)) {
                assertEquals(Connection.Status.CONNECTED, again.connection().getStatus(), "the owner reconnects");
            }
        }
    }

    /** A manager-caller bearer for {@code owner}'s "laptop". */
    private static String caller(AuthAuthorityPlane plane, String owner) {
        ActorRow row = plane.ledger().grantActor(Principal.of(owner, "laptop"), Grant.of(List.of("chat"), List.of(), List.of()));
        CredentialId credential = plane.credentials().mint(Principal.of(owner, "laptop"), row.lifecycleUid()).id();
        return plane.bearers().issue(BearerRequest.managerCaller(Principal.of(owner, "laptop"), List.of("chat"), row.lifecycleUid(), credential,
                Duration.ofMinutes(5)));
    }
}
