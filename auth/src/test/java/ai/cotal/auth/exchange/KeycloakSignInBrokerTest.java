package ai.cotal.auth.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.ActorRow;
import ai.cotal.auth.Grant;
import ai.cotal.auth.GrantPolicy;
import ai.cotal.auth.IdpPin;
import ai.cotal.auth.InboxNonce;
import ai.cotal.auth.SpaceProvisioning;
import ai.cotal.auth.service.AuthService;
import ai.cotal.auth.service.AuthServiceOptions;
import ai.cotal.auth.service.StockPlane;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.id.Principal;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.testbroker.oidc.KeycloakExtension;
import ai.cotal.testbroker.oidc.KeycloakRealm;
import ai.cotal.testbroker.oidc.KeycloakServer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jwt.SignedJWT;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stock service against a real Keycloak ({@link KeycloakServer}, one per test run): a user's
 * ID token, signed RS256 or ES256 by the realm, is exchanged at the public face and connects
 * through the auth callout; a key rolled over at Keycloak is picked up with one JWKS fetch; every
 * kind of bad proof a Keycloak deployment meets is refused naming its check; an expired one too;
 * the grant policy admits a user by a Keycloak realm role and refuses once the role is taken.
 */
@Tag("broker")
@ExtendWith({NatsBrokerExtension.class, KeycloakExtension.class})
class KeycloakSignInBrokerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicInteger REALMS = new AtomicInteger();
    private static final String CLIENT = "cotal-space";
    private static final String PASSWORD = "alice-password-1";
    private final SpaceAuth auth = SpaceAuth.create("alpha", Clock.systemUTC());
    private final CalloutAuth callout = CalloutAuth.create("alpha", auth.broker(), auth.account().accountPublicKey(),
            Clock.systemUTC());
    private final InMemorySecretStore store = new InMemorySecretStore();
    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path stateDir;

    private NatsBroker broker(NatsBrokers brokers) {
        SpaceProvisioning.forSpace(auth, callout).write(store);
        return brokers.start(b -> ServerConfig.render(auth.broker(), List.of(auth.account()), ServerConfigOptions.builder()
                .transport(Transport.plaintext()).storeDir(b.storeDir()).extraAccounts(List.of(callout.jwt())).build()));
    }

    /** A fresh realm with the space's client and the user alice; answers it and alice's {@code sub}. */
    private static Map.Entry<KeycloakRealm, String> realm(KeycloakServer keycloak) {
        KeycloakRealm realm = keycloak.realm("signin-" + REALMS.incrementAndGet());
        realm.client(CLIENT);
        return Map.entry(realm, realm.user("alice", PASSWORD));
    }

    private AuthService service(NatsBroker nats, KeycloakRealm realm, List<String> algorithms) {
        return service(nats, realm, algorithms, null);
    }

    private AuthService service(NatsBroker nats, KeycloakRealm realm, List<String> algorithms, GrantPolicy policy) {
        AuthPlaneOptions plane = StockPlane.options(nats.url(), "alpha", stateDir, store).build();
        AuthServiceOptions.Builder options = AuthServiceOptions.builder().oidc(realm.issuer(), CLIENT, algorithms)
                .publicAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        if (policy != null) {
            options.grantPolicy(policy);
        }
        return AuthService.open(plane, options.build());
    }

    private Principal grantAlice(AuthService service, String sub) {
        IdpPin pin = IdpPin.read(stateDir).orElseThrow();
        Principal laptop = Principal.of(service.plane().deriveOwner(pin.issuer(), sub).value(), "laptop");
        service.plane().ledger().grantActor(laptop, Grant.of(List.of(), List.of(), List.of()));
        return laptop;
    }

    private HttpResponse<String> exchange(AuthService service, String idpToken) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(service.publicUrl().orElseThrow() + "/exchange"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                        "{\"idpToken\":\"" + idpToken + "\",\"actor\":\"laptop\"}")).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String error(HttpResponse<String> answer) throws Exception {
        return JSON.readTree(answer.body()).path("error").asText();
    }

    private void connect(NatsBroker nats, Principal principal, String bearer) throws Exception {
        String nonce = InboxNonce.forPrincipal(principal);
        try (Connection joined = Nats.connect(new Options.Builder().server(nats.url())
                .authHandler(Nats.staticCredentials(callout.sentinelCreds().text().getBytes(StandardCharsets.UTF_8)))
                .token(bearer.toCharArray()).connectionName(nonce).inboxPrefix(InboxNonce.inboxPrefix(nonce))
                .maxControlLine(ServerConfig.MAX_CONTROL_LINE).noReconnect().build())) {
            joined.flush(Duration.ofSeconds(5));
            assertEquals(Connection.Status.CONNECTED, joined.getStatus(), "admitted by the callout");
        }
    }

    @Test
    void rs256AndEs256IdTokensOfAKeycloakUserConnectThroughTheCallout(NatsBrokers brokers, KeycloakServer keycloak)
            throws Exception {
        NatsBroker nats = broker(brokers);
        var realm = realm(keycloak);
        try (AuthService service = service(nats, realm.getKey(), List.of("RS256", "ES256"))) {
            Principal laptop = grantAlice(service, realm.getValue());
            String rs256 = realm.getKey().tokens(CLIENT, "alice", PASSWORD).idToken();
            assertEquals("RS256", SignedJWT.parse(rs256).getHeader().getAlgorithm().getName());
            HttpResponse<String> first = exchange(service, rs256);
            assertEquals(200, first.statusCode(), first.body());
            JsonNode body = JSON.readTree(first.body());
            assertEquals(laptop.owner().value(), body.path("owner").asText(), "the owner derives from Keycloak's iss and sub");
            connect(nats, laptop, body.path("token").asText());

            realm.getKey().addKey("ES256");
            realm.getKey().idTokenAlgorithm(CLIENT, "ES256");
            String es256 = realm.getKey().tokens(CLIENT, "alice", PASSWORD).idToken();
            assertEquals("ES256", SignedJWT.parse(es256).getHeader().getAlgorithm().getName());
            HttpResponse<String> second = exchange(service, es256);
            assertEquals(200, second.statusCode(), second.body());
            connect(nats, laptop, JSON.readTree(second.body()).path("token").asText());
        }
    }

    @Test
    void aKeyRolledOverAtKeycloakIsPickedUpWithOneJwksFetch(NatsBrokers brokers, KeycloakServer keycloak) throws Exception {
        NatsBroker nats = broker(brokers);
        var realm = realm(keycloak);
        try (AuthService service = service(nats, realm.getKey(), List.of("RS256"))) {
            grantAlice(service, realm.getValue());
            String before = realm.getKey().tokens(CLIENT, "alice", PASSWORD).idToken();
            assertEquals(200, exchange(service, before).statusCode());
            int fetches = keycloak.jwksFetches();
            assertEquals(200, exchange(service, realm.getKey().tokens(CLIENT, "alice", PASSWORD).idToken()).statusCode());
            assertEquals(fetches, keycloak.jwksFetches(), "a known key needs no fetch");

            String kid = realm.getKey().addKey("RS256");
            String after = realm.getKey().tokens(CLIENT, "alice", PASSWORD).idToken();
            assertEquals(kid, SignedJWT.parse(after).getHeader().getKeyID(), "Keycloak signs with the new key");
            assertNotEquals(SignedJWT.parse(before).getHeader().getKeyID(), kid);
            HttpResponse<String> rotated = exchange(service, after);
            assertEquals(200, rotated.statusCode(), rotated.body());
            assertEquals(fetches + 1, keycloak.jwksFetches(), "the new kid cost exactly one refetch");
            assertEquals(200, exchange(service, before).statusCode(), "the old key is still published, so still accepted");
            assertEquals(fetches + 1, keycloak.jwksFetches());
        }
    }

    @Test
    void everyBadProofAKeycloakDeploymentMeetsIsRefusedNamingItsCheck(NatsBrokers brokers, KeycloakServer keycloak)
            throws Exception {
        NatsBroker nats = broker(brokers);
        var realm = realm(keycloak);
        KeycloakRealm kc = realm.getKey();
        kc.client("another-client");
        var otherRealm = realm(keycloak);
        try (AuthService service = service(nats, kc, List.of("RS256"))) {
            grantAlice(service, realm.getValue());
            KeycloakRealm.Tokens tokens = kc.tokens(CLIENT, "alice", PASSWORD);
            SignedJWT good = SignedJWT.parse(tokens.idToken());
            RSAKey published = JWKSet.load(URI.create(kc.issuer() + "/protocol/openid-connect/certs").toURL())
                    .getKeyByKeyId(good.getHeader().getKeyID()).toRSAKey();
            String[] parts = tokens.idToken().split("\\.");
            String payload = new String(Base64URL.from(parts[1]).decode(), StandardCharsets.UTF_8);
            String tamperedPayload = Base64URL.encode(payload.replace("\"alice\"", "\"mallory\"")).toString();
            List<List<String>> cases = List.of(
                    List.of(kc.tokens("another-client", "alice", PASSWORD).idToken(), "identity proof: aud"),
                    // another realm signs with keys the pinned realm does not publish: the signature is checked first
                    List.of(otherRealm.getKey().tokens(CLIENT, "alice", PASSWORD).idToken(),
                            "identity proof: signature does not verify with a key of the pinned provider"),
                    List.of(tokens.accessToken(), "identity proof: "),
                    List.of(tokens.refreshToken(), "identity proof: "),
                    List.of(parts[0] + "." + tamperedPayload + "." + parts[2],
                            "identity proof: signature does not verify with a key of the pinned provider"),
                    List.of(Base64URL.encode("{\"alg\":\"none\"}") + "." + parts[1] + ".", "identity proof: alg none is refused"),
                    List.of(hs256(good, published), "identity proof: alg HS256 is not accepted by the pin"));
            for (List<String> c : cases) {
                HttpResponse<String> answer = exchange(service, c.get(0));
                assertEquals(401, answer.statusCode(), c.get(1) + ": " + answer.body());
                assertTrue(error(answer).startsWith(c.get(1)), c.get(1) + " vs " + error(answer));
            }
            assertEquals(200, exchange(service, tokens.idToken()).statusCode(), "the good proof still passes");
        }
    }

    /** The token's claims signed HS256 with the provider's published RSA key as the MAC secret. */
    private static String hs256(SignedJWT token, RSAKey published) throws Exception {
        SignedJWT forged = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.HS256).keyID(token.getHeader().getKeyID()).build(),
                token.getJWTClaimsSet());
        forged.sign(new MACSigner(published.toRSAPublicKey().getEncoded()));
        return forged.serialize();
    }

    @Test
    void theGrantPolicyAdmitsAKeycloakRealmRoleAtTheFirstExchangeAndRefusesOnceTheRoleIsTaken(NatsBrokers brokers,
            KeycloakServer keycloak) throws Exception {
        NatsBroker nats = broker(brokers);
        var realm = realm(keycloak);
        KeycloakRealm kc = realm.getKey();
        kc.role("cotal-user");
        kc.grantRole("alice", "cotal-user");
        GrantPolicy policy = GrantPolicy.parse("{\"rules\":[{\"name\":\"staff\",\"when\":{\"realmRole\":\"cotal-user\"},"
                + "\"actors\":[\"laptop\"],\"allowSubscribe\":[\"general\"],\"allowPublish\":[\"general\"]}]}", "grantPolicy");
        try (AuthService service = service(nats, kc, List.of("RS256"), policy)) {
            IdpPin pin = IdpPin.read(stateDir).orElseThrow();
            Principal laptop = Principal.of(service.plane().deriveOwner(pin.issuer(), realm.getValue()).value(), "laptop");
            assertTrue(service.plane().ledger().find(laptop).isEmpty(), "nobody granted alice by hand");
            HttpResponse<String> first = exchange(service, kc.tokens(CLIENT, "alice", PASSWORD).idToken());
            assertEquals(200, first.statusCode(), first.body());
            ActorRow row = service.plane().ledger().find(laptop).orElseThrow();
            assertEquals(List.of("general"), row.allowPublish(), "the rule's grant");
            assertEquals(java.util.Optional.of("policy:staff"), row.label());
            connect(nats, laptop, JSON.readTree(first.body()).path("token").asText());

            kc.revokeRole("alice", "cotal-user");
            HttpResponse<String> after = exchange(service, kc.tokens(CLIENT, "alice", PASSWORD).idToken());
            assertEquals(401, after.statusCode(), after.body());
            assertTrue(error(after).contains("the grant policy no longer admits it"), after.body());
            assertTrue(service.plane().ledger().find(laptop).isEmpty(), "the policy's row is revoked");
        }
    }

    @Test
    void anIdTokenPastItsLifetimeIsRefusedExpired(NatsBrokers brokers, KeycloakServer keycloak) throws Exception {
        NatsBroker nats = broker(brokers);
        var realm = realm(keycloak);
        realm.getKey().tokenLifetime(Duration.ofSeconds(2));
        try (AuthService service = service(nats, realm.getKey(), List.of("RS256"))) {
            grantAlice(service, realm.getValue());
            String idToken = realm.getKey().tokens(CLIENT, "alice", PASSWORD).idToken();
            Instant exp = SignedJWT.parse(idToken).getJWTClaimsSet().getExpirationTime().toInstant();
            assertTrue(exp.isBefore(Instant.now().plusSeconds(5)), "Keycloak issued a 2-s token");
            assertEquals(200, exchange(service, idToken).statusCode(), "accepted while it lives");
            // the token's lifetime is the behaviour under test: wait out its exp (a second past it), then ask again
            Thread.sleep(Math.max(0, Duration.between(Instant.now(), exp).toMillis()) + 1_000);
            HttpResponse<String> answer = exchange(service, idToken);
            assertEquals(401, answer.statusCode(), answer.body());
            assertEquals("identity proof: expired", error(answer));
        }
    }
}
