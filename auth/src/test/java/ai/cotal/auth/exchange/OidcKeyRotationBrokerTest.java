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
import ai.cotal.testbroker.oidc.OidcTestProvider;
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

/**
 * A key-id flood that spends the JWKS fetch budget, then a real key rotation at the provider
 * (SPEC §13.17), through the public {@code /exchange} on the real broker: the rotated-in key's
 * token is answered 503 with {@code Retry-After} (never 401), nothing is written, and once the
 * budget refills (the exchange's clock moved by that many seconds) the same token exchanges.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class OidcKeyRotationBrokerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final PlaneFixture f = new PlaneFixture();
    private final HttpClient http = HttpClient.newHttpClient();
    /** The exchange's clock runs with real time (the provider's tokens carry it) plus what the test adds. */
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
    void aSpentBudgetAnswers503WithRetryAfterForARotatedKeyThen200OnceItRefills(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (OidcTestProvider idp = new OidcTestProvider();
             AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
             Connection admin = f.admin(nats);
             TokenExchange exchange = TokenExchange.start(ExchangeOptions.builder().plane(plane).stateDir(stateDir)
                     .clock(new TestClock(() -> System.currentTimeMillis() + ahead.get())) // the default budget: 6
                     .publicAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build())) {
            IdpPin pin = IdpPin.pinOidc(stateDir, idp.issuer(), OidcTestProvider.CLIENT_ID, List.of("RS256"));
            Owner owner = plane.deriveOwner(pin.issuer(), "alice");
            plane.ledger().grantActor(Principal.of(owner.value(), "laptop"), Grant.of(List.of(), List.of(), List.of()));
            long written = lastSequence(admin);

            RSAKey stranger = new RSAKeyGenerator(2048).generate();
            for (int i = 0; i < 6; i++) { // six unknown kids: each costs one fetch, the first one too
                HttpResponse<String> forged = exchange(exchange, OidcTestProvider.sign(new JWSHeader.Builder(
                        JWSAlgorithm.RS256).keyID("unknown-" + i).build(), idp.claims("alice").build(),
                        new RSASSASigner(stranger)));
                assertEquals(401, forged.statusCode(), forged.body());
                assertEquals(i + 1, idp.jwksFetches(), "one fetch per unknown kid, a fresh start's included");
            }

            idp.rotate(); // the provider rotates a new key in: its kid is unknown to the kept set
            String real = idp.rs256("alice");
            HttpResponse<String> spent = exchange(exchange, real);
            assertEquals(503, spent.statusCode(), spent.body());
            long retry = Long.parseLong(spent.headers().firstValue("Retry-After").orElseThrow());
            assertTrue(retry >= 1 && retry <= 60, "Retry-After: " + retry);
            assertEquals("the identity provider's keys were fetched too often; retry in " + retry + " s",
                    JSON.readTree(spent.body()).path("error").asText());
            assertEquals(6, idp.jwksFetches(), "no fetch past the budget");
            assertEquals(written, lastSequence(admin), "nothing was written for the refused attempts");

            ahead.addAndGet(retry * 1000); // the budget's clock reaches the Retry-After
            HttpResponse<String> refilled = exchange(exchange, real);
            assertEquals(200, refilled.statusCode(), refilled.body());
            JsonNode body = JSON.readTree(refilled.body());
            assertEquals(owner.value(), body.path("owner").asText());
            assertEquals(7, idp.jwksFetches(), "the refilled budget fetched the rotated key once");
        }
    }
}
