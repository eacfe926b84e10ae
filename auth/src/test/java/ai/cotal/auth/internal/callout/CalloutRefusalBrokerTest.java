package ai.cotal.auth.internal.callout;

import ai.cotal.auth.internal.plane.AuthorityPlaneImpl;
import ai.cotal.auth.internal.plane.BearerIssuer;
import ai.cotal.auth.internal.callout.AuthCallout;
import ai.cotal.auth.internal.callout.CalloutOptions;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.internal.callout.CalloutFixture;
import ai.cotal.auth.PlaneFixture;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import ai.cotal.core.jwt.AccountClaim;
import ai.cotal.core.jwt.AccountLimits;
import ai.cotal.core.jwt.AuthorizationRequestClaim;
import ai.cotal.core.jwt.CalloutSettings;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.keys.NKeyPair;
import ai.cotal.core.keys.XKeyPair;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.auth.internal.callout.CalloutHandler;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Refused bearers get a reason; forged requests get nothing; a stopped responder is covered by its peer. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class CalloutRefusalBrokerTest {
    private final CalloutFixture f = new CalloutFixture();

    @TempDir
    Path stateDir;

    @Test
    void revokedExpiredAndForeignBearersAreRefusedWithTheReason(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        long mark = nats.log().mark();
        try (AuthAuthorityPlane plane = f.open(nats, stateDir); AuthCallout callout = f.responder(nats, plane)) {
            String revoked = f.bearer(plane, "revoked", List.of(), List.of(), Duration.ofMinutes(5));
            plane.ledger().revoke(Principal.of(CalloutFixture.OWNER, "revoked"));
            Exception e = f.refused(nats, revoked, CalloutFixture.nonce("revoked", "revoked-0001"));
            // nats-server 2.15 tells the client "Authorization Violation" only; the reason travels in the signed,
            // sealed error answer, which the broker logs (asserted below).
            assertTrue(e.getMessage().contains("Authorization Violation"), e.getMessage());

            String shortLived = f.bearer(plane, "expiring", List.of(), List.of(), Duration.ofSeconds(1));
            long exp = com.nimbusds.jwt.SignedJWT.parse(shortLived).getJWTClaimsSet().getExpirationTime().getTime();
            Thread.sleep(Math.max(0, exp + 6_000 - System.currentTimeMillis())); // past exp and the 5 s tolerance
            f.refused(nats, shortLived, CalloutFixture.nonce("expiring", "expired-0001"));

            BearerIssuer foreignIssuer = BearerIssuer.load(PlaneFixture.provisioned("beta"), "beta", f.plane.clock);
            String foreign = foreignIssuer.issue(BearerRequest.member(Principal.of(CalloutFixture.OWNER, "laptop"), List.of("chat"),
                    new LifecycleUid("abcdefghijklmnopqrstuvwxyz"), new CredentialId("abcdefghijklmnopqrstuvwxyz"), Duration.ofMinutes(5)));
            f.refused(nats, foreign, CalloutFixture.nonce("laptop", "foreign-0001"));
        }
        String log = String.join("\n", nats.log().tail(200));
        assertTrue(nats.log().containsSince(mark, "not (or no longer) granted"), "the broker reports the reason:\n" + log);
        assertTrue(nats.log().containsSince(mark, "bearer refused: expired"), log);
        assertTrue(nats.log().containsSince(mark, "bearer refused: kid names no key"), log);
    }

    @Test
    void forgedRequestsGetNoAnswer(NatsBrokers brokers) throws Exception {
        Identity tester = Identity.create();
        String authJwt = NatsJwt.encode(ClaimSet.of(f.callout.accountPublicKey(), "AUTH_alpha", new AccountClaim(
                AccountLimits.unlimited(false), List.of(f.callout.signing().publicKey()), null, null,
                new CalloutSettings(List.of(f.callout.calloutCreds().userPublicKey(), tester.id()),
                        List.of(f.plane.space.accountPublicKey()), f.callout.xkey().publicKey()), null, null),
                Instant.now().plusSeconds(1)), f.plane.broker.operator());
        NatsBroker nats = brokers.start(b -> ServerConfig.render(f.plane.broker, List.of(f.plane.space),
                ServerConfigOptions.builder().transport(Transport.plaintext()).storeDir(b.storeDir())
                        .extraAccounts(List.of(authJwt)).build()));
        Creds testerCreds = new Creds(NatsJwt.encode(ClaimSet.of(tester.id(), "tester", UserClaim.of(null, null,
                f.callout.accountPublicKey(), null), Instant.now()), f.callout.signing()), tester);
        try (AuthAuthorityPlane plane = f.open(nats, stateDir); AuthCallout callout = f.responder(nats, plane);
             Connection forger = NatsConnector.builder().server(nats.url()).creds(testerCreds).label("forger").build().connect()) {
            // Through the broker a client cannot even publish on the callout subject: the broker refuses it.
            long mark = nats.log().mark();
            forger.publish("$SYS.REQ.USER.AUTH", "forged".getBytes(StandardCharsets.US_ASCII));
            forger.flush(Duration.ofSeconds(5));
            assertTrue(nats.log().await(mark, line -> line.contains("Publish Violation") && line.contains("$SYS.REQ.USER.AUTH"),
                    Duration.ofSeconds(5)).isPresent(), "the broker refuses a client's publish on $SYS.REQ.USER.AUTH");

            // What a responder does with forged requests that reach it anyway (a compromised route, a replay).
            CalloutHandler handler = new CalloutHandler(CalloutOptions.builder().server(nats.url()).callout(f.callout)
                    .plane(((AuthorityPlaneImpl) plane).calloutAuthority())
                    .signer(new ai.cotal.core.trust.SpaceAuth(f.plane.broker, f.plane.space).strip()).build());
            NKeyPair fakeServer = NKeyPair.create(KeyType.SERVER);
            XKeyPair fakeXkey = XKeyPair.create();
            String request = request(fakeServer, fakeServer.publicKey(), fakeXkey.publicKey());
            // Well-formed and sealed by a server of its own: answered (with a refusal: it carries no bearer).
            byte[] answer = handler.handle(message(fakeXkey.seal(bytes(request), f.callout.xkey().publicKey()),
                    fakeXkey.publicKey())).orElseThrow();
            String response = new String(fakeXkey.open(answer, f.callout.xkey().publicKey()), StandardCharsets.US_ASCII);
            assertTrue(NatsJwt.decode(response, ai.cotal.core.jwt.AuthorizationResponseClaim.class).nats().error()
                    .contains("no bearer"));
            // Unsealed: no header, plain JWT.
            assertTrue(handler.handle(message(bytes(request), null)).isEmpty());
            // Wrong issuer: signed by another server key than the one it names.
            String wrongIssuer = request(NKeyPair.create(KeyType.SERVER), fakeServer.publicKey(), fakeXkey.publicKey());
            assertTrue(handler.handle(message(fakeXkey.seal(bytes(wrongIssuer), f.callout.xkey().publicKey()),
                    fakeXkey.publicKey())).isEmpty());
            // Foreign xkey: sealed to a key that is not the callout's.
            assertTrue(handler.handle(message(fakeXkey.seal(bytes(request), XKeyPair.create().publicKey()),
                    fakeXkey.publicKey())).isEmpty());
            // The header names another key than server_id.xkey.
            XKeyPair other = XKeyPair.create();
            assertTrue(handler.handle(message(other.seal(bytes(request), f.callout.xkey().publicKey()),
                    other.publicKey())).isEmpty());
            // A server outside the expected set.
            CalloutHandler strict = new CalloutHandler(CalloutOptions.builder().server(nats.url()).callout(f.callout)
                    .plane(((AuthorityPlaneImpl) plane).calloutAuthority())
                    .signer(new ai.cotal.core.trust.SpaceAuth(f.plane.broker, f.plane.space).strip())
                    .expectedServerIds(java.util.Set.of(nats.serverId())).build());
            assertTrue(strict.handle(message(fakeXkey.seal(bytes(request), f.callout.xkey().publicKey()),
                    fakeXkey.publicKey())).isEmpty());
        }
    }

    private String request(NKeyPair signer, String serverId, String serverXkey) {
        AuthorizationRequestClaim body = new AuthorizationRequestClaim(new AuthorizationRequestClaim.ServerId("fake", "127.0.0.1",
                serverId, "2.15.1", null, null, serverXkey), NKeyPair.create(KeyType.USER).publicKey(), null,
                new AuthorizationRequestClaim.ConnectOptions(null, null, null, null, null, null, "ibx-forged-0001", "java",
                        "2", 1), null, null, null);
        return NatsJwt.encode(ClaimSet.of(f.callout.accountPublicKey(), null, body, Instant.now())
                .withExp(Instant.now().plusSeconds(10).getEpochSecond()), signer);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static io.nats.client.Message message(byte[] payload, String xkeyHeader) {
        Headers headers = new Headers();
        if (xkeyHeader != null) {
            headers.put(CalloutHandler.XKEY_HEADER, xkeyHeader);
        }
        return NatsMessage.builder().subject("$SYS.REQ.USER.AUTH").replyTo("_INBOX.test").headers(headers).data(payload)
                .build();
    }

    @Test
    void connectsSucceedWhileOneOfTwoRespondersIsStopped(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = f.open(nats, stateDir); AuthCallout second = f.responder(nats, plane)) {
            AuthCallout first = f.responder(nats, plane);
            String bearer = f.bearer(plane, "laptop", List.of(), List.of(), Duration.ofMinutes(5));
            for (int i = 0; i < 4; i++) {
                try (CalloutFixture.Client client = f.connect(nats, bearer, CalloutFixture.nonce("laptop", "both-000" + i))) {
                    assertEquals(Connection.Status.CONNECTED, client.connection().getStatus());
                }
            }
            first.close();
            for (int i = 0; i < 4; i++) {
                try (CalloutFixture.Client client = f.connect(nats, bearer, CalloutFixture.nonce("laptop", "one-0000" + i))) {
                    assertEquals(Connection.Status.CONNECTED, client.connection().getStatus());
                }
            }
        }
    }
}
