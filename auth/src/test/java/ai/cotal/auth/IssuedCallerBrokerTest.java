package ai.cotal.auth;

import ai.cotal.auth.internal.callout.CalloutFixture;
import ai.cotal.auth.internal.callout.AuthCallout;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.Principal;
import ai.cotal.core.issued.IssuedAuthority;
import ai.cotal.core.issued.IssuedRef;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import io.nats.client.Message;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The issued manager-caller view: one generation per nonce, a changed ceiling needs a new nonce, a
 * revoked issuance is never confirmed again.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class IssuedCallerBrokerTest {
    private final CalloutFixture f = new CalloutFixture();

    @TempDir
    Path stateDir;

    private String bearer(AuthAuthorityPlane plane, ActorRow row, String credential, List<String> scope) {
        return plane.bearers().issue(BearerRequest.managerCaller(Principal.of(CalloutFixture.OWNER, "laptop"), scope, row.lifecycleUid(),
                new CredentialId(credential), Duration.ofMinutes(5)));
    }

    private static long messages(Connection admin, String stream) throws Exception {
        return admin.jetStreamManagement().getStreamInfo(stream).getStreamState().getMsgCount();
    }

    @Test
    void aReconnectUnderTheSameNonceConfirmsTheSameGeneration(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = f.open(nats, stateDir); AuthCallout callout = f.responder(nats, plane);
             Connection admin = f.plane.admin(nats)) {
            TestManager.forOwner(plane, nats, CalloutFixture.OWNER).close(); // a candidate manager (SPEC §14.4)
            ActorRow row = plane.ledger().grantActor(Principal.of(CalloutFixture.OWNER, "laptop"),
                    Grant.of(List.of("chat", "ops"), List.of(), List.of()));
            CredentialId credential = plane.credentials().mint(Principal.of(CalloutFixture.OWNER, "laptop"), row.lifecycleUid()).id();
            String chatOnly = bearer(plane, row, credential.value(), List.of("chat"));
            String nonce = CalloutFixture.nonce("laptop", "caller-000001");
            String token = IssuedAuthority.acceptedToken(nonce);
            try (CalloutFixture.Client client = f.connect(nats, chatOnly, nonce)) {
                Message row1 = client.connection().request("$JS.API.DIRECT.GET.KV_cotal_accepted_alpha.$KV.cotal_accepted_alpha"
                        + ".accepted.v1." + token, new byte[0], Duration.ofSeconds(5));
                assertTrue(new String(row1.getData(), StandardCharsets.UTF_8).contains("\"generation\""),
                        "the caller reads its own accepted row");
            }
            long evidence = messages(admin, "KV_cotal_issued_alpha");
            assertEquals(1, messages(admin, "KV_cotal_accepted_alpha"));
            String generation = plane.issuedCallers().resolve(token).ref().generation();

            try (CalloutFixture.Client again = f.connect(nats, chatOnly, nonce)) {
                assertEquals(Connection.Status.CONNECTED, again.connection().getStatus());
            }
            assertEquals(evidence, messages(admin, "KV_cotal_issued_alpha"), "no new evidence: the generation is confirmed");
            assertEquals(generation, plane.issuedCallers().resolve(token).ref().generation());

            String wider = bearer(plane, row, credential.value(), List.of("chat", "ops"));
            f.refused(nats, wider, nonce);
            try (CalloutFixture.Client fresh = f.connect(nats, wider, CalloutFixture.nonce("laptop", "caller-000002"))) {
                assertEquals(Connection.Status.CONNECTED, fresh.connection().getStatus());
            }
            assertEquals(2, messages(admin, "KV_cotal_accepted_alpha"));
            plane.ledger().revoke(Principal.of(CalloutFixture.OWNER, "laptop"));
            assertEquals(ai.cotal.core.ErrorCode.PERMISSION_DENIED, org.junit.jupiter.api.Assertions.assertThrows(
                    ai.cotal.core.CotalException.class, () -> plane.issuedCallers().resolve(token)).code(),
                    "issued resolution answers the actor-ledger source from the plane's ledger");
        }
    }

    @Test
    void aRevokedIssuanceIsRefusedOnAReconnectUnderTheSameNonce(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        long mark = nats.log().mark();
        try (AuthAuthorityPlane plane = f.open(nats, stateDir); AuthCallout callout = f.responder(nats, plane);
             Connection admin = f.plane.admin(nats)) {
            TestManager.forOwner(plane, nats, CalloutFixture.OWNER).close(); // a candidate manager (SPEC §14.4)
            ActorRow row = plane.ledger().grantActor(Principal.of(CalloutFixture.OWNER, "laptop"),
                    Grant.of(List.of("chat"), List.of(), List.of()));
            CredentialId credential = plane.credentials().mint(Principal.of(CalloutFixture.OWNER, "laptop"), row.lifecycleUid()).id();
            String caller = bearer(plane, row, credential.value(), List.of("chat"));
            String nonce = CalloutFixture.nonce("laptop", "revoked-000001");
            try (CalloutFixture.Client first = f.connect(nats, caller, nonce)) {
                assertEquals(Connection.Status.CONNECTED, first.connection().getStatus());
            }
            IssuedRef ref = plane.issuedCallers().resolve(IssuedAuthority.acceptedToken(nonce)).ref();
            IssuedAuthority.bind(admin, "alpha", source -> true, f.plane.clock).revoke(ref);

            Exception refused = f.refused(nats, caller, nonce);
            assertTrue(refused.getMessage().contains("Authorization Violation"), refused.getMessage());
            assertTrue(nats.log().containsSince(mark, "issuance " + ref.key() + " was revoked"),
                    "the broker logs the callout's reason:\n" + String.join("\n", nats.log().tail(50)));
            try (CalloutFixture.Client fresh = f.connect(nats, caller, CalloutFixture.nonce("laptop", "revoked-000002"))) {
                assertEquals(Connection.Status.CONNECTED, fresh.connection().getStatus(),
                        "the principal is still granted: a new nonce is a new issuance");
            }
        }
    }
}
