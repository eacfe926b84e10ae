package ai.cotal.auth.exchange;

import ai.cotal.auth.jose.Ed25519JwsSigner;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;

/**
 * A test-side OpenID Connect provider on loopback (SPEC §13.18 says why not mock-oauth2-server):
 * discovery at {@code <issuer>/.well-known/openid-configuration}, a JWKS with an RSA and an EC key,
 * RS256 and ES256 tokens signed with Nimbus, key rotation on demand and a JWKS fetch counter.
 * The issuer has a path, like Keycloak's realms.
 */
public final class OidcTestProvider implements AutoCloseable {
    /** The client id the tests pin. */
    public static final String CLIENT_ID = "cotal-space";
    private final HttpServer server;
    private final AtomicInteger jwksFetches = new AtomicInteger();
    private volatile RSAKey rsa;
    private volatile ECKey ec;
    private volatile String discoveryIssuer;
    private int generation = 1;
    private final Ed25519PrivateKeyParameters stockKey = new Ed25519PrivateKeyParameters(new java.security.SecureRandom());
    private final OctetKeyPair stock = new OctetKeyPair.Builder(Curve.Ed25519,
            com.nimbusds.jose.util.Base64URL.encode(stockKey.generatePublicKey().getEncoded())).keyID("stock-1").build();

    /** Starts the provider on a loopback port. */
    public OidcTestProvider() throws Exception {
        rsa = new RSAKeyGenerator(2048).keyID("rsa-1").generate();
        ec = new ECKeyGenerator(Curve.P_256).keyID("ec-1").generate();
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.createContext("/realms/cotal/.well-known/openid-configuration", http -> send(http,
                "{\"issuer\":\"" + (discoveryIssuer != null ? discoveryIssuer : issuer()) + "\",\"jwks_uri\":\""
                        + issuer() + "/protocol/openid-connect/certs\",\"authorization_endpoint\":\"" + issuer()
                        + "/auth\",\"id_token_signing_alg_values_supported\":[\"HS256\",\"RS256\",\"ES256\",\"none\"]}"));
        server.createContext("/realms/cotal/protocol/openid-connect/certs", http -> {
            jwksFetches.incrementAndGet();
            send(http, new JWKSet(List.<JWK>of(rsa.toPublicJWK(), ec.toPublicJWK(), stock.toPublicJWK())).toString(true));
        });
        server.createContext("/jwks", http -> send(http, new JWKSet(stock.toPublicJWK()).toString(true)));
        server.start();
    }

    private static void send(HttpExchange http, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        http.getResponseHeaders().add("Content-Type", "application/json");
        http.sendResponseHeaders(200, bytes.length);
        http.getResponseBody().write(bytes);
        http.close();
    }

    /** The URL of the stock-shape provider this server also is (EdDSA, {@code <url>/jwks}, iss = aud = the origin). */
    public String stockUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** A stock-shape EdDSA token for {@code subject}, valid 10 min. */
    public String stockToken(String subject) throws Exception {
        Instant now = Instant.now();
        return sign(new JWSHeader.Builder(JWSAlgorithm.EdDSA).keyID(stock.getKeyID()).build(), new JWTClaimsSet.Builder()
                .issuer(stockUrl()).audience(stockUrl()).subject(subject).issueTime(Date.from(now))
                .expirationTime(Date.from(now.plusSeconds(600))).build(), new Ed25519JwsSigner(stockKey));
    }

    /** An EdDSA token for {@code subject} with the oidc claims, signed by the Ed25519 key the JWKS also serves. */
    public String eddsa(String subject) throws Exception {
        return sign(new JWSHeader.Builder(JWSAlgorithm.EdDSA).keyID(stock.getKeyID()).build(), claims(subject).build(),
                new Ed25519JwsSigner(stockKey));
    }

    /** The issuer (with a path, like a Keycloak realm). */
    public String issuer() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/realms/cotal";
    }

    /** The JWKS fetches served so far. */
    int jwksFetches() {
        return jwksFetches.get();
    }

    /** The discovery document names another issuer from now on. */
    void misstateIssuer(String other) {
        discoveryIssuer = other;
    }

    /** Replaces both keys with new ones under new kids; the JWKS serves only the new ones. */
    synchronized void rotate() throws Exception {
        generation++;
        rsa = new RSAKeyGenerator(2048).keyID("rsa-" + generation).generate();
        ec = new ECKeyGenerator(Curve.P_256).keyID("ec-" + generation).generate();
    }

    RSAKey rsa() {
        return rsa;
    }

    /** Claims of a valid token for {@code subject}: iss, aud = the client id, azp, sub, iat, exp in 10 min. */
    JWTClaimsSet.Builder claims(String subject) {
        Instant now = Instant.now();
        return new JWTClaimsSet.Builder().issuer(issuer()).audience(List.of(CLIENT_ID, "account")).claim("azp", CLIENT_ID)
                .subject(subject).issueTime(Date.from(now)).expirationTime(Date.from(now.plusSeconds(600)));
    }

    /** An RS256 token for {@code subject} with the current RSA key. */
    public String rs256(String subject) throws Exception {
        return rs256(claims(subject).build(), h -> h);
    }

    String es256(String subject) throws Exception {
        return sign(new JWSHeader.Builder(JWSAlgorithm.ES256).keyID(ec.getKeyID()).type(JOSEObjectType.JWT).build(),
                claims(subject).build(), new ECDSASigner(ec));
    }

    String rs256(JWTClaimsSet claims, UnaryOperator<JWSHeader.Builder> header) throws Exception {
        return sign(header.apply(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(rsa.getKeyID()).type(JOSEObjectType.JWT))
                .build(), claims, new RSASSASigner(rsa));
    }

    static String sign(JWSHeader header, JWTClaimsSet claims, JWSSigner signer) throws Exception {
        SignedJWT jwt = new SignedJWT(header, claims);
        jwt.sign(signer);
        return jwt.serialize();
    }

    /** Stops the provider. */
    @Override
    public void close() {
        server.stop(0);
    }
}
