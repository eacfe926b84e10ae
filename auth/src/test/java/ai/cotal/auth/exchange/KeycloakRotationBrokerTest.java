package ai.cotal.auth.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.Grant;
import ai.cotal.auth.IdpPin;
import ai.cotal.auth.PlaneFixture;
import ai.cotal.auth.TestClock;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import io.nats.client.Connection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import ai.cotal.testbroker.oidc.KeycloakExtension;
import ai.cotal.testbroker.oidc.KeycloakRealm;
import ai.cotal.testbroker.oidc.KeycloakServer;
import com.nimbusds.jwt.SignedJWT;

/**
 * The JWKS budget attack against a real Keycloak (SPEC §13.17): six tokens naming unknown key ids
 * spend the fetch budget; then the realm rolls a new signing key in, and a user's real ID token
 * signed by it is answered 503 with {@code Retry-After} (never 401) with nothing written; once the
 * budget refills (the exchange's clock moved by that many seconds) the same token exchanges, with
 * one more JWKS fetch.
 */
@Tag("broker")
@ExtendWith({NatsBrokerExtension.class, KeycloakExtension.class})
class KeycloakRotationBrokerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CLIENT = "cotal-space";
    private static final String PASSWORD = "alice-password-1";
    private final PlaneFixture f = new PlaneFixture();
    private final HttpClient http = HttpClient.newHttpClient();
    /** The exchange's clock runs with real time (Keycloak's tokens carry it) plus what the test adds. */
    private final AtomicLong ahead = new AtomicLong();

    @TempDir
    Path stateDir;

    private HttpResponse<String> exchange(TokenExchange exchange, String idpToken) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(exchange.publicUrl().orElseThrow() + "/exchange"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                        "{\"idpToken\":\"" + idpToken + "\",\"actor\":\"laptop\"}")).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static long lastSequence(Connection admin) throws Exception {
        return admin.jetStreamManagement().getStreamInfo("KV_cotal_auth_alpha").getStreamState().getLastSequence();
    }

    @Test
    void aSpentBudgetAnswers503ForAKeyKeycloakRolledInThen200OnceItRefills(NatsBrokers brokers, KeycloakServer keycloak)
            throws Exception {
        KeycloakRealm realm = keycloak.realm("rotation");
        realm.client(CLIENT);
        String sub = realm.user("alice", PASSWORD);
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
             Connection admin = f.admin(nats);
             TokenExchange exchange = TokenExchange.start(ExchangeOptions.builder().plane(plane).stateDir(stateDir)
                     .clock(new TestClock(() -> System.currentTimeMillis() + ahead.get())) // the default budget: 6
                     .publicAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build())) {
            IdpPin pin = IdpPin.pinOidc(stateDir, realm.issuer(), CLIENT, List.of("RS256"));
            Owner owner = plane.deriveOwner(pin.issuer(), sub);
            plane.ledger().grantActor(Principal.of(owner.value(), "laptop"), Grant.of(List.of(), List.of(), List.of()));
            long written = lastSequence(admin);
            int fetches = keycloak.jwksFetches();

            SignedJWT shape = SignedJWT.parse(realm.tokens(CLIENT, "alice", PASSWORD).idToken());
            RSAKey stranger = new RSAKeyGenerator(2048).generate();
            for (int i = 0; i < 6; i++) { // six unknown kids over Keycloak's own claims: each costs one fetch
                SignedJWT forged = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID("unknown-" + i).build(),
                        shape.getJWTClaimsSet());
                forged.sign(new RSASSASigner(stranger));
                HttpResponse<String> answer = exchange(exchange, forged.serialize());
                assertEquals(401, answer.statusCode(), answer.body());
                assertEquals(fetches + i + 1, keycloak.jwksFetches(), "one fetch per unknown kid, the first one too");
            }

            String kid = realm.addKey("RS256"); // Keycloak rolls a new key in: its kid is unknown to the kept set
            String real = realm.tokens(CLIENT, "alice", PASSWORD).idToken();
            assertEquals(kid, SignedJWT.parse(real).getHeader().getKeyID());
            HttpResponse<String> spent = exchange(exchange, real);
            assertEquals(503, spent.statusCode(), spent.body());
            long retry = Long.parseLong(spent.headers().firstValue("Retry-After").orElseThrow());
            assertTrue(retry >= 1 && retry <= 60, "Retry-After: " + retry);
            assertEquals("the identity provider's keys were fetched too often; retry in " + retry + " s",
                    JSON.readTree(spent.body()).path("error").asText());
            assertEquals(fetches + 6, keycloak.jwksFetches(), "no fetch past the budget");
            assertEquals(written, lastSequence(admin), "nothing was written for the refused attempts");

            ahead.addAndGet(retry * 1000); // the budget's clock reaches the Retry-After, within the minute
            HttpResponse<String> refilled = exchange(exchange, real);
            assertEquals(200, refilled.statusCode(), refilled.body());
            assertEquals(owner.value(), JSON.readTree(refilled.body()).path("owner").asText());
            assertEquals(fetches + 7, keycloak.jwksFetches(), "the refilled budget fetched the rolled-in key once");
        }
    }
}
