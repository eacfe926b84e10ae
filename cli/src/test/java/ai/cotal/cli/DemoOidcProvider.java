package ai.cotal.cli;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
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

/**
 * A minimal OpenID Connect provider on loopback for the demo's {@code --oidc-issuer} test (the
 * auth module's {@code OidcTestProvider} is not on the cli test path): discovery at
 * {@code <issuer>/.well-known/openid-configuration}, a JWKS with one RSA key, RS256 ID tokens.
 */
final class DemoOidcProvider implements AutoCloseable {
    static final String CLIENT_ID = "cotal-space";
    private final HttpServer server;
    private final RSAKey rsa;

    DemoOidcProvider() throws Exception {
        rsa = new RSAKeyGenerator(2048).keyID("rsa-1").generate();
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.createContext("/realms/demo/.well-known/openid-configuration", http -> send(http, "{\"issuer\":\""
                + issuer() + "\",\"jwks_uri\":\"" + issuer() + "/certs\",\"authorization_endpoint\":\"" + issuer()
                + "/auth\",\"id_token_signing_alg_values_supported\":[\"RS256\"]}"));
        server.createContext("/realms/demo/certs", http -> send(http, new JWKSet(rsa.toPublicJWK()).toString(true)));
        server.start();
    }

    String issuer() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/realms/demo";
    }

    /** An RS256 ID token for {@code subject}: iss, aud and azp the client id, iat, exp in 10 minutes. */
    String idToken(String subject) throws Exception {
        Instant now = Instant.now();
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(rsa.getKeyID())
                .type(JOSEObjectType.JWT).build(), new JWTClaimsSet.Builder().issuer(issuer()).audience(List.of(CLIENT_ID))
                .claim("azp", CLIENT_ID).subject(subject).issueTime(Date.from(now))
                .expirationTime(Date.from(now.plusSeconds(600))).build());
        jwt.sign(new RSASSASigner(rsa));
        return jwt.serialize();
    }

    private static void send(HttpExchange http, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        http.getResponseHeaders().add("Content-Type", "application/json");
        http.sendResponseHeaders(200, bytes.length);
        http.getResponseBody().write(bytes);
        http.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
