package ai.cotal.auth.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.Grant;
import ai.cotal.auth.IdpPin;
import ai.cotal.auth.PlaneFixture;
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
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import io.nats.client.Connection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The human arm against an oidc pin (SPEC §13.17) on the real broker, with a real OpenID provider
 * on loopback: RS256, ES256, PS384, PS512 and ES512 proofs become bearers, a rotated key is picked
 * up by one refetch, a flood of unknown kids costs the provider at most the configured fetches
 * (then 503 with Retry-After, never 401), and every refusal names its check and no secret.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class OidcExchangeBrokerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final PlaneFixture f = new PlaneFixture();
    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path stateDir;

    private HttpResponse<String> exchange(TokenExchange exchange, String idpToken) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(exchange.publicUrl().orElseThrow() + "/exchange"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                        "{\"idpToken\":\"" + idpToken + "\",\"actor\":\"laptop\"}")).build(), HttpResponse.BodyHandlers.ofString());
    }

    private TokenExchange start(AuthAuthorityPlane plane, int fetchesPerMinute) {
        return TokenExchange.start(ExchangeOptions.builder().plane(plane).stateDir(stateDir).jwksFetchesPerMinute(fetchesPerMinute)
                .publicAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build());
    }

    private String grant(AuthAuthorityPlane plane, OidcTestProvider idp) {
        IdpPin pin = IdpPin.pinOidc(stateDir, idp.issuer(), OidcTestProvider.CLIENT_ID, List.of());
        assertEquals(List.of("RS256", "ES256"), pin.algorithms(), "the accepted ones the provider advertises");
        Owner owner = plane.deriveOwner(pin.issuer(), "alice");
        plane.ledger().grantActor(Principal.of(owner.value(), "laptop"), Grant.of(List.of("chat"), List.of(), List.of()));
        return owner.value();
    }

    private static String error(HttpResponse<String> response) throws Exception {
        return JSON.readTree(response.body()).path("error").asText();
    }

    @Test
    void rs256AndEs256ProofsBecomeBearersAndARotatedKeyNeedsOneRefetch(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (OidcTestProvider idp = new OidcTestProvider();
             AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
             TokenExchange exchange = start(plane, 6)) {
            String owner = grant(plane, idp);
            for (String token : List.of(idp.rs256("alice"), idp.es256("alice"))) {
                HttpResponse<String> answer = exchange(exchange, token);
                assertEquals(200, answer.statusCode(), answer.body());
                JsonNode body = JSON.readTree(answer.body());
                assertEquals(owner, body.path("owner").asText(), "the owner derives from [iss, sub] as for every pin");
                var claims = plane.bearers().verify(body.path("token").asText());
                plane.credentials().authorize(claims.attempt());
            }
            assertEquals(1, idp.jwksFetches(), "the JWKS is kept: one fetch for both proofs");

            String old = idp.rs256("alice");
            idp.rotate();
            HttpResponse<String> rotated = exchange(exchange, idp.rs256("alice"));
            assertEquals(200, rotated.statusCode(), rotated.body());
            assertEquals(2, idp.jwksFetches(), "the new kid was picked up by exactly one refetch");
            assertEquals(200, exchange(exchange, idp.es256("alice")).statusCode(), "the rotated EC key is kept too");
            assertEquals(2, idp.jwksFetches());
            HttpResponse<String> retired = exchange(exchange, old);
            assertEquals(401, retired.statusCode(), retired.body());
            assertEquals("identity proof: signature does not verify with a key of the pinned provider", error(retired));
        }
    }

    @Test
    void anEdDsaProofVerifiesThroughTheEd25519VerifierAndOnlyPinnedAlgorithmsPass(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (OidcTestProvider idp = new OidcTestProvider();
             AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
             TokenExchange exchange = start(plane, 6)) {
            IdpPin pin = IdpPin.pinOidc(stateDir, idp.issuer(), OidcTestProvider.CLIENT_ID, List.of("EdDSA", "RS256"));
            plane.ledger().grantActor(Principal.of(plane.deriveOwner(pin.issuer(), "alice").value(), "laptop"),
                    Grant.of(List.of(), List.of(), List.of()));
            HttpResponse<String> eddsa = exchange(exchange, idp.eddsa("alice"));
            assertEquals(200, eddsa.statusCode(), eddsa.body());
            assertEquals(200, exchange(exchange, idp.rs256("alice")).statusCode());
            HttpResponse<String> es256 = exchange(exchange, idp.es256("alice"));
            assertEquals(401, es256.statusCode(), es256.body());
            assertEquals("identity proof: alg ES256 is not accepted by the pin", error(es256));
        }
    }

    @Test
    void ps384Ps512AndEs512ProofsVerifyAgainstAPinThatNamesThem(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (OidcTestProvider idp = new OidcTestProvider();
             AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
             TokenExchange exchange = start(plane, 6)) {
            IdpPin pin = IdpPin.pinOidc(stateDir, idp.issuer(), OidcTestProvider.CLIENT_ID, List.of("PS384", "PS512", "ES512"));
            assertEquals(List.of("PS384", "PS512", "ES512"), pin.algorithms());
            plane.ledger().grantActor(Principal.of(plane.deriveOwner(pin.issuer(), "alice").value(), "laptop"),
                    Grant.of(List.of(), List.of(), List.of()));
            for (JWSAlgorithm alg : List.of(JWSAlgorithm.PS384, JWSAlgorithm.PS512, JWSAlgorithm.ES512)) {
                HttpResponse<String> answer = exchange(exchange, idp.sign(alg, idp.claims("alice").build()));
                assertEquals(200, answer.statusCode(), alg + ": " + answer.body());
            }
            HttpResponse<String> rs256 = exchange(exchange, idp.rs256("alice"));
            assertEquals(401, rs256.statusCode(), rs256.body());
            assertEquals("identity proof: alg RS256 is not accepted by the pin", error(rs256));
        }
    }

    @Test
    void aFloodOfUnknownKidsFetchesNoMoreThanTheLimitAMinute(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (OidcTestProvider idp = new OidcTestProvider();
             AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
             TokenExchange exchange = start(plane, 3)) {
            grant(plane, idp);
            assertEquals(200, exchange(exchange, idp.rs256("alice")).statusCode());
            RSAKey stranger = new RSAKeyGenerator(2048).generate();
            for (int i = 0; i < 20; i++) {
                String forged = OidcTestProvider.sign(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID("random-" + i).build(),
                        idp.claims("alice").build(), new RSASSASigner(stranger));
                HttpResponse<String> answer = exchange(exchange, forged);
                if (i < 2) { // refetched: the provider's current set lacks the kid
                    assertEquals(401, answer.statusCode(), answer.body());
                } else { // the budget is spent: a kid the provider may publish is not refused
                    assertEquals(503, answer.statusCode(), answer.body());
                    long retry = Long.parseLong(answer.headers().firstValue("Retry-After").orElseThrow());
                    assertTrue(retry >= 1 && retry <= 60, "Retry-After: " + retry);
                    assertEquals("the identity provider's keys were fetched too often; retry in " + retry + " s", error(answer));
                }
            }
            assertEquals(3, idp.jwksFetches(), "one first fetch and two refetches: the limit of 3 a minute");
            assertEquals(200, exchange(exchange, idp.rs256("alice")).statusCode(), "the kept keys still answer");
        }
    }

    @Test
    void refusalsNameTheCheckAndNoSecret(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (OidcTestProvider idp = new OidcTestProvider();
             AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
             TokenExchange exchange = start(plane, 6)) {
            grant(plane, idp);
            Instant now = Instant.now();
            RSAKey attacker = new RSAKeyGenerator(2048).keyID("attacker").generate();
            JWTClaimsSet good = idp.claims("alice").build();
            List<List<String>> cases = List.of(
                    List.of(idp.rs256(idp.claims("alice").issuer("http://127.0.0.1:1/realms/other").build(), h -> h),
                            "identity proof: iss is not the pinned issuer"),
                    List.of(idp.rs256(idp.claims("alice").audience("someone-else").claim("azp", null).build(), h -> h),
                            "identity proof: " + OidcVerifier.NO_AUDIENCE),
                    // an access token as Keycloak mints it without an audience mapper: aud "account", azp the client
                    List.of(idp.rs256(idp.claims("alice").audience("account").build(), h -> h),
                            "identity proof: aud does not name the pinned client id; send the ID token (id_token) the"
                                    + " provider issued for that client, not an access token"),
                    List.of(idp.rs256(idp.claims("alice").claim("azp", "someone-else").build(), h -> h),
                            "identity proof: azp is not the pinned client id"),
                    List.of(new PlainJWT(good).serialize(), "identity proof: alg none is refused"),
                    List.of(OidcTestProvider.sign(new JWSHeader.Builder(JWSAlgorithm.HS256).keyID(idp.rsaKey().getKeyID()).build(),
                            good, new MACSigner(idp.rsaKey().toRSAPublicKey().getEncoded())),
                            "identity proof: alg HS256 is not accepted by the pin"),
                    List.of(OidcTestProvider.sign(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID("attacker")
                            .jwk(attacker.toPublicJWK()).build(), good, new RSASSASigner(attacker)),
                            "identity proof: the header must not carry or point to keys"),
                    // signed by the pinned key itself: the header alone is refused
                    List.of(OidcTestProvider.sign(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(idp.rsaKey().getKeyID())
                            .jwkURL(java.net.URI.create("https://attacker.example/jwks")).build(), good,
                            new RSASSASigner(idp.rsaKey())), "identity proof: the header must not carry or point to keys"),
                    List.of(OidcTestProvider.sign(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(idp.rsaKey().getKeyID())
                            .x509CertURL(java.net.URI.create("https://attacker.example/cert.pem")).build(), good,
                            new RSASSASigner(idp.rsaKey())), "identity proof: the header must not carry or point to keys"),
                    List.of(OidcTestProvider.sign(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(idp.rsaKey().getKeyID())
                            .x509CertChain(List.of(com.nimbusds.jose.util.Base64.encode("not a certificate"))).build(), good,
                            new RSASSASigner(idp.rsaKey())), "identity proof: the header must not carry or point to keys"),
                    List.of(idp.rs256(idp.claims("alice").issueTime(Date.from(now.minusSeconds(900)))
                            .expirationTime(Date.from(now.minusSeconds(120))).build(), h -> h), "identity proof: expired"),
                    List.of(idp.rs256(idp.claims("alice").notBeforeTime(Date.from(now.plusSeconds(600))).build(), h -> h),
                            "identity proof: not yet valid"),
                    List.of(idp.rs256(idp.claims("alice").claim("pad", "x".repeat(OidcVerifier.MAX_TOKEN_CHARS)).build(),
                            h -> h), "identity proof: larger than 16384 characters"));
            for (List<String> c : cases) {
                HttpResponse<String> answer = exchange(exchange, c.get(0));
                assertEquals(401, answer.statusCode(), c.get(1) + ": " + answer.body());
                assertEquals(c.get(1), error(answer));
            }
            assertEquals(200, exchange(exchange, idp.rs256("alice")).statusCode(), "the good proof still passes");
        }
    }

    @Test
    void aProviderThatIsDownIsUnavailableAndNothingIsWritten(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
             Connection admin = f.admin(nats);
             TokenExchange exchange = start(plane, 6)) {
            String token;
            try (OidcTestProvider idp = new OidcTestProvider()) {
                grant(plane, idp);
                token = idp.rs256("alice");
            } // down before its keys were ever fetched
            HttpResponse<String> answer = exchange(exchange, token);
            assertEquals(503, answer.statusCode(), answer.body());
            assertEquals("the identity provider's keys cannot be fetched now; retry shortly", error(answer),
                    "the 503 names the identity provider, not the plane");
            assertTrue(answer.headers().firstValue("Retry-After").isEmpty(), "no time is known for a provider that is down");
            assertTrue(admin.keyValue("cotal_auth_alpha").keys().stream().noneMatch(k -> k.startsWith("cred.")),
                    "no credential row was written");
        }
    }
}
