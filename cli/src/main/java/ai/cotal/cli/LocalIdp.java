package ai.cotal.cli;

import ai.cotal.auth.jose.Ed25519JwsSigner;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;

/**
 * The demo's identity provider on loopback: one Ed25519 key, its JWKS at {@code /jwks}, and ID
 * tokens whose issuer and audience are its own URL (what {@code IdpPin.pin} expects).
 */
final class LocalIdp implements AutoCloseable {
    private static final String KID = "demo-idp-1";
    private final Ed25519PrivateKeyParameters key = new Ed25519PrivateKeyParameters(new SecureRandom());
    private final HttpServer server;

    LocalIdp() {
        OctetKeyPair jwk = new OctetKeyPair.Builder(Curve.Ed25519, Base64URL.encode(key.generatePublicKey().getEncoded()))
                .keyID(KID).build();
        byte[] jwks = new JWKSet(jwk).toString(true).getBytes(StandardCharsets.UTF_8);
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/jwks", http -> {
            http.getResponseHeaders().set("Content-Type", "application/json");
            http.sendResponseHeaders(200, jwks.length);
            http.getResponseBody().write(jwks);
            http.close();
        });
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** A signed ID token for {@code subject}, valid for {@code ttl}. */
    String token(String subject, Duration ttl) {
        Instant now = Instant.now();
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.EdDSA).keyID(KID).build(),
                new JWTClaimsSet.Builder().issuer(url()).audience(url()).subject(subject).issueTime(Date.from(now))
                        .expirationTime(Date.from(now.plus(ttl))).build());
        try {
            jwt.sign(new Ed25519JwsSigner(key));
        } catch (JOSEException e) {
            throw new IllegalStateException("cannot sign the demo ID token", e);
        }
        return jwt.serialize();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
