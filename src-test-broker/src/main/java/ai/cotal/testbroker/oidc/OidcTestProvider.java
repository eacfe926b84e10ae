package ai.cotal.testbroker.oidc;

import com.nimbusds.jose.JOSEException;
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
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpExchange;
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
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.math.ec.rfc8032.Ed25519;

/**
 * A development OpenID Connect provider for tests, on loopback: it serves discovery at
 * {@code <issuer>/.well-known/openid-configuration} and a JWKS at {@link #jwksUri()}, and mints
 * signed ID tokens for any subject (RS256 to RS512 and PS256 to PS512 with its RSA key, ES256 on
 * P-256, ES512 on P-521 and EdDSA over Ed25519), so an integration test
 * pins it and exchanges a real signed token with no external identity provider:
 *
 * <pre>{@code
 * try (OidcTestProvider idp = new OidcTestProvider()) {
 *     IdpPin.pinOidc(stateDir, idp.issuer(), idp.clientId(), List.of());
 *     String idToken = idp.rs256("alice");   // POST it to the exchange as "idpToken"
 * }
 * }</pre>
 *
 * The issuer has a path, as a Keycloak realm's does ({@code http://127.0.0.1:<port>/realms/cotal}).
 * The discovery document advertises {@code RS256} and {@code ES256} (and {@code HS256} and
 * {@code none}, which a careful relying party refuses), so a pin that names no algorithms accepts
 * RS256 and ES256; EdDSA tokens verify against a pin that names {@code EdDSA}. The same server is
 * also a stock-shape provider ({@link #stockUrl()}: issuer and audience the origin, JWKS at
 * {@code <origin>/jwks}, EdDSA tokens from {@link #stockToken(String)}).
 *
 * <p>{@link #rotate()} replaces every signing key under new key ids, as a provider's key rollover
 * does; {@link #jwksFetches()} counts the JWKS requests, so a test can show a relying party's key
 * cache at work. For JUnit 5, {@link OidcTestProviderExtension} hands one to a test as a parameter.
 *
 * <p>Thread-safe: tokens may be minted from any thread, also while {@link #rotate()} runs (a token
 * is signed with the keys current when it is minted). It is a test tool: its private keys are
 * reachable through {@link #rsaKey()} so a test can forge variations; never use it in production.
 */
public final class OidcTestProvider implements AutoCloseable {
    /** The client id (the audience of its ID tokens) unless {@link Builder#clientId(String)} sets another. */
    public static final String CLIENT_ID = "cotal-space";
    /** How long a minted token is valid unless {@link Builder#tokenLifetime(Duration)} sets another. */
    public static final Duration DEFAULT_LIFETIME = Duration.ofMinutes(10);

    private static final String REALM = "/realms/cotal";
    private static final String CERTS = "/protocol/openid-connect/certs";

    private final HttpServer server;
    private final String clientId;
    private final Duration lifetime;
    private final AtomicInteger jwksFetches = new AtomicInteger();
    private volatile Keys keys;
    private volatile String discoveryIssuer;
    private int generation = 1;

    /** The signing keys of one generation: rotated together. */
    private record Keys(RSAKey rsa, ECKey ec, ECKey ec521, Ed25519PrivateKeyParameters edPrivate, OctetKeyPair ed) {
        static Keys generate(int generation) {
            try {
                Ed25519PrivateKeyParameters edPrivate = new Ed25519PrivateKeyParameters(new SecureRandom());
                OctetKeyPair ed = new OctetKeyPair.Builder(Curve.Ed25519,
                        Base64URL.encode(edPrivate.generatePublicKey().getEncoded())).keyID("ed-" + generation).build();
                return new Keys(new RSAKeyGenerator(2048).keyID("rsa-" + generation).generate(),
                        new ECKeyGenerator(Curve.P_256).keyID("ec-" + generation).generate(),
                        new ECKeyGenerator(Curve.P_521).keyID("ec521-" + generation).generate(), edPrivate, ed);
            } catch (JOSEException e) {
                throw new IllegalStateException("cannot generate the test provider's keys", e);
            }
        }

        JWKSet publicSet() {
            return new JWKSet(List.<JWK>of(rsa.toPublicJWK(), ec.toPublicJWK(), ec521.toPublicJWK(), ed.toPublicJWK()));
        }
    }

    /**
     * Starts a provider with the client id {@value #CLIENT_ID} and tokens valid
     * {@link #DEFAULT_LIFETIME}, on a free loopback port.
     *
     * @throws UncheckedIOException when no loopback port can be bound
     */
    public OidcTestProvider() {
        this(CLIENT_ID, DEFAULT_LIFETIME);
    }

    private OidcTestProvider(String clientId, Duration lifetime) {
        this.clientId = clientId;
        this.lifetime = lifetime;
        this.keys = Keys.generate(generation);
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind the test provider on loopback", e);
        }
        server.createContext(REALM + "/.well-known/openid-configuration", http -> send(http,
                "{\"issuer\":\"" + (discoveryIssuer != null ? discoveryIssuer : issuer()) + "\",\"jwks_uri\":\""
                        + jwksUri() + "\",\"authorization_endpoint\":\"" + issuer()
                        + "/auth\",\"id_token_signing_alg_values_supported\":[\"HS256\",\"RS256\",\"ES256\",\"none\"]}"));
        server.createContext(REALM + CERTS, http -> {
            jwksFetches.incrementAndGet();
            send(http, keys.publicSet().toString(true));
        });
        server.createContext("/jwks", http -> send(http, new JWKSet(keys.ed().toPublicJWK()).toString(true)));
        server.start();
    }

    /** A builder for a provider with another client id or token lifetime. */
    public static Builder builder() {
        return new Builder();
    }

    /** Settings of a provider to start; not thread-safe. */
    public static final class Builder {
        private String clientId = CLIENT_ID;
        private Duration lifetime = DEFAULT_LIFETIME;

        private Builder() {
        }

        /** The client id: the audience and {@code azp} of minted tokens. Default {@value #CLIENT_ID}. */
        public Builder clientId(String clientId) {
            if (clientId == null || clientId.isBlank()) {
                throw new IllegalArgumentException("clientId must not be blank");
            }
            this.clientId = clientId;
            return this;
        }

        /** How long minted tokens are valid ({@code exp - iat}). Default {@link #DEFAULT_LIFETIME}. */
        public Builder tokenLifetime(Duration lifetime) {
            if (lifetime == null || lifetime.isNegative() || lifetime.isZero()) {
                throw new IllegalArgumentException("tokenLifetime must be positive");
            }
            this.lifetime = lifetime;
            return this;
        }

        /**
         * Starts the provider on a free loopback port.
         *
         * @throws UncheckedIOException when no loopback port can be bound
         */
        public OidcTestProvider start() {
            return new OidcTestProvider(clientId, lifetime);
        }
    }

    private static void send(HttpExchange http, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        http.getResponseHeaders().add("Content-Type", "application/json");
        http.sendResponseHeaders(200, bytes.length);
        http.getResponseBody().write(bytes);
        http.close();
    }

    /** The issuer, with a path: {@code http://127.0.0.1:<port>/realms/cotal}. */
    public String issuer() {
        return stockUrl() + REALM;
    }

    /** The client id its tokens are issued for (their audience and {@code azp}). */
    public String clientId() {
        return clientId;
    }

    /** The JWKS URI the discovery document names: every current public key (RSA, EC P-256 and P-521, Ed25519). */
    public String jwksUri() {
        return issuer() + CERTS;
    }

    /** The origin {@code http://127.0.0.1:<port>}, which is also a stock-shape provider (EdDSA keys at {@code /jwks}). */
    public String stockUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** A stock-shape EdDSA token for {@code subject}: issuer and audience {@link #stockUrl()}, no {@code azp}. */
    public String stockToken(String subject) {
        Instant now = Instant.now();
        return sign(JWSAlgorithm.EdDSA, new JWTClaimsSet.Builder().issuer(stockUrl()).audience(stockUrl())
                .subject(subject).issueTime(Date.from(now)).expirationTime(Date.from(now.plus(lifetime))).build());
    }

    /**
     * The claims of a valid ID token for {@code subject}, to change before {@link #sign(JWSAlgorithm,
     * JWTClaimsSet)}: {@code iss} the issuer, {@code aud} the client id and {@code "account"},
     * {@code azp} the client id, {@code iat} now, {@code exp} now plus the token lifetime.
     */
    public JWTClaimsSet.Builder claims(String subject) {
        Instant now = Instant.now();
        return new JWTClaimsSet.Builder().issuer(issuer()).audience(List.of(clientId, "account")).claim("azp", clientId)
                .subject(subject).issueTime(Date.from(now)).expirationTime(Date.from(now.plus(lifetime)));
    }

    /** A valid RS256 ID token for {@code subject} ({@link #claims(String)}), signed with the current RSA key. */
    public String rs256(String subject) {
        return sign(JWSAlgorithm.RS256, claims(subject).build());
    }

    /** A valid ES256 ID token for {@code subject}, signed with the current P-256 key. */
    public String es256(String subject) {
        return sign(JWSAlgorithm.ES256, claims(subject).build());
    }

    /** A valid EdDSA (Ed25519) ID token for {@code subject}, signed with the current Ed25519 key. */
    public String eddsa(String subject) {
        return sign(JWSAlgorithm.EdDSA, claims(subject).build());
    }

    /**
     * Signs {@code claims} with the current key for {@code algorithm} ({@code RS256},
     * {@code RS384}, {@code RS512}, {@code PS256}, {@code PS384}, {@code PS512} with the RSA key,
     * {@code ES256} with the P-256 key, {@code ES512} with the P-521 key, or {@code EdDSA}),
     * header {@code typ: JWT} and the key's {@code kid}.
     *
     * @throws IllegalArgumentException for another algorithm
     */
    public String sign(JWSAlgorithm algorithm, JWTClaimsSet claims) {
        Keys current = keys;
        if (JWSAlgorithm.RS256.equals(algorithm)) {
            return rs256(claims, h -> h);
        }
        if (List.of(JWSAlgorithm.RS384, JWSAlgorithm.RS512, JWSAlgorithm.PS256, JWSAlgorithm.PS384, JWSAlgorithm.PS512)
                .contains(algorithm)) {
            return sign(header(algorithm, current.rsa().getKeyID()).build(), claims, signer(() -> new RSASSASigner(current.rsa())));
        }
        if (JWSAlgorithm.ES256.equals(algorithm)) {
            return sign(header(algorithm, current.ec().getKeyID()).build(), claims, signer(() -> new ECDSASigner(current.ec())));
        }
        if (JWSAlgorithm.ES512.equals(algorithm)) {
            return sign(header(algorithm, current.ec521().getKeyID()).build(), claims,
                    signer(() -> new ECDSASigner(current.ec521())));
        }
        if (JWSAlgorithm.EdDSA.equals(algorithm)) {
            byte[] input = new SignedJWT(header(algorithm, current.ed().getKeyID()).build(), claims).getSigningInput();
            byte[] signature = new byte[Ed25519.SIGNATURE_SIZE];
            current.edPrivate().sign(Ed25519.Algorithm.Ed25519, null, input, 0, input.length, signature, 0);
            return new String(input, StandardCharsets.US_ASCII) + "." + Base64URL.encode(signature);
        }
        throw new IllegalArgumentException("the test provider signs RS256 to RS512, PS256 to PS512, ES256, ES512 and"
                + " EdDSA, not " + algorithm);
    }

    /**
     * Signs {@code claims} with the current RSA key (RS256) under a header that {@code header} may
     * change (it starts with {@code alg}, {@code kid} and {@code typ}): for tests of header checks.
     */
    public String rs256(JWTClaimsSet claims, UnaryOperator<JWSHeader.Builder> header) {
        RSAKey rsa = keys.rsa();
        return sign(header.apply(header(JWSAlgorithm.RS256, rsa.getKeyID())).build(), claims,
                signer(() -> new RSASSASigner(rsa)));
    }

    /**
     * Signs {@code claims} under {@code header} with any Nimbus {@code signer}: for tokens the
     * provider would never mint (a stranger's key, another algorithm).
     *
     * @throws IllegalStateException when the signer refuses
     */
    public static String sign(JWSHeader header, JWTClaimsSet claims, JWSSigner signer) {
        SignedJWT jwt = new SignedJWT(header, claims);
        try {
            jwt.sign(signer);
        } catch (JOSEException e) {
            throw new IllegalStateException("cannot sign the test token: " + e.getMessage(), e);
        }
        return jwt.serialize();
    }

    private static JWSHeader.Builder header(JWSAlgorithm algorithm, String kid) {
        return new JWSHeader.Builder(algorithm).keyID(kid).type(JOSEObjectType.JWT);
    }

    private interface SignerFactory {
        JWSSigner create() throws JOSEException;
    }

    private static JWSSigner signer(SignerFactory factory) {
        try {
            return factory.create();
        } catch (JOSEException e) {
            throw new IllegalStateException("cannot use the test provider's key: " + e.getMessage(), e);
        }
    }

    /** The current RSA signing key, private part included, for tests that forge variations of its tokens. */
    public RSAKey rsaKey() {
        return keys.rsa();
    }

    /** How many times the JWKS at {@link #jwksUri()} has been fetched. */
    public int jwksFetches() {
        return jwksFetches.get();
    }

    /** From now on the discovery document names {@code other} as its issuer (a provider that misstates itself). */
    public void misstateIssuer(String other) {
        discoveryIssuer = Objects.requireNonNull(other, "other");
    }

    /**
     * Replaces every signing key (RSA, EC P-256 and P-521, Ed25519) with a new one under a new key id; the JWKS
     * serves only the new keys from now on, so tokens minted before no longer verify against it.
     */
    public synchronized void rotate() {
        generation++;
        keys = Keys.generate(generation);
    }

    /** Stops the HTTP server at once. */
    @Override
    public void close() {
        server.stop(0);
    }

    @Override
    public String toString() {
        return "OidcTestProvider[" + issuer() + "]";
    }
}
