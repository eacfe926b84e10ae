package ai.cotal.auth.exchange;

import ai.cotal.auth.jose.Ed25519JwsSigner;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;

/** A minimal identity provider on loopback: an Ed25519 key, its JWKS at /jwks, and signed ID tokens. */
public final class TestIdp implements AutoCloseable {
    private final Ed25519PrivateKeyParameters key = new Ed25519PrivateKeyParameters(new SecureRandom());
    private final OctetKeyPair jwk = new OctetKeyPair.Builder(Curve.Ed25519,
            Base64URL.encode(key.generatePublicKey().getEncoded())).keyID("idp-key-1").build();
    private final HttpServer server;

    public TestIdp() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        server.createContext("/jwks", http -> {
            byte[] body = new JWKSet(jwk).toString(true).getBytes(StandardCharsets.UTF_8);
            http.sendResponseHeaders(200, body.length);
            http.getResponseBody().write(body);
            http.close();
        });
        server.start();
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public String token(String subject, long ttlSeconds) throws Exception {
        return token(subject, url(), url(), ttlSeconds);
    }

    String token(String subject, String issuer, String audience, long ttlSeconds) throws Exception {
        Instant now = Instant.now();
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.EdDSA).keyID("idp-key-1").build(),
                new JWTClaimsSet.Builder().issuer(issuer).audience(audience).subject(subject).issueTime(Date.from(now))
                        .expirationTime(Date.from(now.plusSeconds(ttlSeconds))).build());
        jwt.sign(new Ed25519JwsSigner(key));
        return jwt.serialize();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
