package ai.cotal.testbroker.oidc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jose.util.JSONObjectUtils;
import com.nimbusds.jwt.SignedJWT;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.bouncycastle.math.ec.rfc8032.Ed25519;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The development provider over real HTTP: discovery names the issuer and JWKS, every minted token
 * verifies against a key the JWKS serves (RS256, ES256, EdDSA), the claims follow the settings,
 * a rotation retires the old keys, and the extension hands out one provider per test and closes it.
 */
@ExtendWith(OidcTestProviderExtension.class)
class OidcTestProviderTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static OidcTestProvider fromLastTest;

    private static String get(String url) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), url);
        return response.body();
    }

    private static JWKSet jwks(OidcTestProvider idp) throws Exception {
        return JWKSet.parse(get(idp.jwksUri()));
    }

    /** True when {@code token} verifies with the key of its {@code kid} in {@code keys}. */
    private static boolean verifies(String token, JWKSet keys) throws Exception {
        SignedJWT jwt = SignedJWT.parse(token);
        JWK key = keys.getKeyByKeyId(jwt.getHeader().getKeyID());
        if (key == null) {
            return false;
        }
        JWSAlgorithm alg = jwt.getHeader().getAlgorithm();
        if (JWSAlgorithm.EdDSA.equals(alg)) {
            byte[] input = jwt.getSigningInput();
            byte[] signature = jwt.getSignature().decode();
            return Ed25519.verify(signature, 0, ((OctetKeyPair) key).getDecodedX(), 0, input, 0, input.length);
        }
        JWSVerifier verifier = JWSAlgorithm.RS256.equals(alg) ? new RSASSAVerifier(key.toRSAKey())
                : new ECDSAVerifier(key.toECKey());
        return jwt.verify(verifier);
    }

    @Test
    void discoveryNamesTheIssuerAndTheJwksAndEveryMintedTokenVerifies(OidcTestProvider idp) throws Exception {
        Map<String, Object> discovery = JSONObjectUtils.parse(get(idp.issuer() + "/.well-known/openid-configuration"));
        assertEquals(idp.issuer(), discovery.get("issuer"));
        assertEquals(idp.jwksUri(), discovery.get("jwks_uri"));
        assertTrue(idp.issuer().startsWith("http://127.0.0.1:"), idp.issuer());

        JWKSet keys = jwks(idp);
        for (String token : List.of(idp.rs256("alice"), idp.es256("alice"), idp.eddsa("alice"))) {
            assertTrue(verifies(token, keys), token);
            var claims = SignedJWT.parse(token).getJWTClaimsSet();
            assertEquals(idp.issuer(), claims.getIssuer());
            assertEquals("alice", claims.getSubject());
            assertTrue(claims.getAudience().contains(OidcTestProvider.CLIENT_ID));
            assertEquals(OidcTestProvider.CLIENT_ID, claims.getStringClaim("azp"));
            assertEquals(OidcTestProvider.DEFAULT_LIFETIME.toSeconds(),
                    (claims.getExpirationTime().getTime() - claims.getIssueTime().getTime()) / 1000);
        }
        assertEquals(1, idp.jwksFetches());

        String stock = idp.stockToken("bob");
        assertTrue(verifies(stock, JWKSet.parse(get(idp.stockUrl() + "/jwks"))));
        assertEquals(List.of(idp.stockUrl()), SignedJWT.parse(stock).getJWTClaimsSet().getAudience());
    }

    @Test
    void theClientIdLifetimeAndClaimsAreSettable() throws Exception {
        try (OidcTestProvider idp = OidcTestProvider.builder().clientId("my-app")
                .tokenLifetime(Duration.ofSeconds(90)).start()) {
            var claims = SignedJWT.parse(idp.rs256("carol")).getJWTClaimsSet();
            assertEquals("my-app", idp.clientId());
            assertTrue(claims.getAudience().contains("my-app"));
            assertEquals(90, (claims.getExpirationTime().getTime() - claims.getIssueTime().getTime()) / 1000);

            String other = idp.sign(JWSAlgorithm.EdDSA, idp.claims("carol").issuer("https://elsewhere.example")
                    .audience("another-client").build());
            assertTrue(verifies(other, jwks(idp)));
            assertEquals("https://elsewhere.example", SignedJWT.parse(other).getJWTClaimsSet().getIssuer());
            assertEquals(List.of("another-client"), SignedJWT.parse(other).getJWTClaimsSet().getAudience());
        }
        assertThrows(IllegalArgumentException.class, () -> OidcTestProvider.builder().clientId(" "));
        assertThrows(IllegalArgumentException.class, () -> OidcTestProvider.builder().tokenLifetime(Duration.ZERO));
    }

    @Test
    void anotherAlgorithmIsRefused(OidcTestProvider idp) {
        assertThrows(IllegalArgumentException.class, () -> idp.sign(JWSAlgorithm.HS256, idp.claims("a").build()));
    }

    @Test
    void rotationServesOnlyNewKeysSoOldTokensNoLongerVerify(OidcTestProvider idp) throws Exception {
        List<String> before = List.of(idp.rs256("alice"), idp.es256("alice"), idp.eddsa("alice"));
        JWKSet old = jwks(idp);
        idp.rotate();
        JWKSet fresh = jwks(idp);
        assertEquals(2, idp.jwksFetches());
        for (String token : before) {
            assertTrue(verifies(token, old));
            assertFalse(verifies(token, fresh), "a retired key is no longer served");
        }
        for (String token : List.of(idp.rs256("alice"), idp.es256("alice"), idp.eddsa("alice"))) {
            assertTrue(verifies(token, fresh));
        }
        assertNotEquals(old.getKeys().get(0).getKeyID(), fresh.getKeys().get(0).getKeyID());
    }

    @Test
    void aMisstatedIssuerIsWhatDiscoverySays(OidcTestProvider idp) throws Exception {
        idp.misstateIssuer("https://changed.example");
        assertEquals("https://changed.example",
                JSONObjectUtils.parse(get(idp.issuer() + "/.well-known/openid-configuration")).get("issuer"));
    }

    @Test
    void theExtensionHandsOneProviderPerTestAndClosesIt(OidcTestProvider first, OidcTestProvider second) {
        assertSame(first, second);
        fromLastTest = first;
    }

    @AfterAll
    static void theExtensionClosedTheProviderAfterItsTest() {
        if (fromLastTest != null) {
            assertThrows(IOException.class, () -> HTTP.send(HttpRequest.newBuilder(URI.create(fromLastTest.jwksUri()))
                    .build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8)), "nothing answers any more");
        }
    }
}
