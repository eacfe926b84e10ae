package ai.cotal.auth.exchange;

import ai.cotal.auth.IdpPin;
import ai.cotal.auth.jose.Ed25519JwsVerifier;
import ai.cotal.core.CotalException;
import com.nimbusds.jose.Algorithm;
import com.nimbusds.jose.Header;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.factories.DefaultJWSVerifierFactory;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKMatcher;
import com.nimbusds.jose.jwk.KeyConverter;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.BadJWSException;
import com.nimbusds.jose.proc.JWSKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import java.net.URI;
import java.security.Key;
import java.security.PublicKey;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Set;

/**
 * Verifies an identity proof against an oidc pin (SPEC §13.17) through Nimbus's
 * {@link DefaultJWTProcessor}: bounded size, the pin's algorithms only (never {@code none}, never
 * HMAC), no key carried in or pointed to by the header, a key of the pinned JWKS
 * ({@link OidcKeys}), EdDSA through {@link Ed25519JwsVerifier}; then exact {@code iss}, {@code aud}
 * containing the client id, {@code azp} equal to it when present, and the times with a bounded
 * skew. Every refusal is {@code unauthenticated} naming the check, never a value; keys that cannot
 * be had now are {@link IdpKeysUnavailable} ({@link OidcKeys}). Thread-safe.
 */
final class OidcVerifier {
    static final int MAX_TOKEN_CHARS = 16_384;
    static final long SKEW_SECONDS = 60;
    private static final String NO_KEY = "signature does not verify with a key of the pinned provider";
    /** An access token's {@code aud} names an API: the refusal says what to send instead. */
    static final String NO_AUDIENCE = "aud does not name the pinned client id; send the ID token (id_token) the provider"
            + " issued for that client, not an access token";
    private static final Set<JOSEObjectType> TYPES = Set.of(JOSEObjectType.JWT, new JOSEObjectType("at+jwt"));

    /** An Ed25519 public key as raw bytes, which Nimbus cannot turn into a JCA key itself. */
    private record Ed25519Key(byte[] raw) implements PublicKey {
        private static final long serialVersionUID = 1L;

        @Override
        public String getAlgorithm() {
            return "Ed25519";
        }

        @Override
        public String getFormat() {
            return "RAW";
        }

        @Override
        public byte[] getEncoded() {
            return raw.clone();
        }
    }

    private final OidcKeys keys;
    private final Clock clock;

    OidcVerifier(OidcKeys keys, Clock clock) {
        this.keys = keys;
        this.clock = clock;
    }

    JWTClaimsSet verify(String token, IdpPin pin) {
        if (token.length() > MAX_TOKEN_CHARS) {
            throw refused("larger than " + MAX_TOKEN_CHARS + " characters");
        }
        JWSHeader header = header(token, pin);
        JWTClaimsSet claims;
        try {
            DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
            processor.setJWSTypeVerifier((type, context) -> { }); // checked in header()
            processor.setJWSKeySelector(selector(pin));
            processor.setJWSVerifierFactory(new Verifiers());
            processor.setJWTClaimsSetVerifier((set, context) -> { }); // checked below, with reasons
            claims = processor.process(SignedJWT.parse(token), null);
        } catch (BadJWSException e) {
            throw refused(NO_KEY);
        } catch (BadJOSEException | JOSEException | java.text.ParseException e) {
            throw refused("unreadable");
        }
        check(claims, pin);
        return claims;
    }

    private static JWSHeader header(String token, IdpPin pin) {
        Header parsed;
        try {
            int dot = token.indexOf('.');
            parsed = Header.parse(new Base64URL(dot < 0 ? token : token.substring(0, dot)));
        } catch (java.text.ParseException e) {
            throw refused("unreadable");
        }
        if (Algorithm.NONE.equals(parsed.getAlgorithm())) {
            throw refused("alg none is refused");
        }
        if (!(parsed instanceof JWSHeader header)) {
            throw refused("not a signed JWT");
        }
        String alg = header.getAlgorithm().getName();
        if (!pin.algorithms().contains(alg)) {
            throw refused("alg " + (alg.matches("[A-Za-z0-9+_-]{1,16}") ? alg + " " : "") + "is not accepted by the pin");
        }
        if (header.getJWK() != null || header.getX509CertChain() != null || header.getJWKURL() != null
                || header.getX509CertURL() != null) {
            throw refused("the header must not carry or point to keys");
        }
        if (header.getType() != null && !TYPES.contains(header.getType())) {
            throw refused("typ must be JWT or at+jwt");
        }
        return header;
    }

    private JWSKeySelector<SecurityContext> selector(IdpPin pin) {
        URI jwksUri = URI.create(pin.jwksUri());
        return (header, context) -> {
            if (!pin.algorithms().contains(header.getAlgorithm().getName())) {
                return List.of();
            }
            List<Key> found = new ArrayList<>();
            for (JWK jwk : keys.select(jwksUri, JWKMatcher.forJWSHeader(header))) {
                if (jwk instanceof OctetKeyPair okp) {
                    if (Curve.Ed25519.equals(okp.getCurve())) {
                        found.add(new Ed25519Key(okp.getDecodedX()));
                    }
                } else {
                    found.addAll(KeyConverter.toJavaKeys(List.of(jwk)));
                }
            }
            if (found.isEmpty()) {
                throw refused(NO_KEY);
            }
            return found;
        };
    }

    /** EdDSA through the project's Ed25519 verifier; everything else through Nimbus's factory. */
    private static final class Verifiers extends DefaultJWSVerifierFactory {
        @Override
        public JWSVerifier createJWSVerifier(JWSHeader header, Key key) throws JOSEException {
            if (key instanceof Ed25519Key ed) {
                if (!JWSAlgorithm.EdDSA.equals(header.getAlgorithm())) {
                    throw new JOSEException("an Ed25519 key verifies EdDSA only");
                }
                return new Ed25519JwsVerifier(ed.raw());
            }
            return super.createJWSVerifier(header, key);
        }
    }

    private void check(JWTClaimsSet claims, IdpPin pin) {
        long now = clock.instant().getEpochSecond();
        if (!pin.issuer().equals(claims.getIssuer())) {
            throw refused("iss is not the pinned issuer");
        }
        if (claims.getAudience() == null || !claims.getAudience().contains(pin.audience())) {
            throw refused(NO_AUDIENCE);
        }
        Object azp = claims.getClaim("azp");
        if (azp != null && !pin.audience().equals(azp)) {
            throw refused("azp is not the pinned client id");
        }
        if (claims.getSubject() == null || claims.getSubject().isEmpty()) {
            throw refused("sub is required");
        }
        if (claims.getExpirationTime() == null || claims.getIssueTime() == null) {
            throw refused("exp and iat are required");
        }
        if (seconds(claims.getExpirationTime()) <= now) {
            throw refused("expired");
        }
        if (seconds(claims.getIssueTime()) > now + SKEW_SECONDS) {
            throw refused("iat is in the future");
        }
        if (claims.getNotBeforeTime() != null && seconds(claims.getNotBeforeTime()) > now + SKEW_SECONDS) {
            throw refused("not yet valid");
        }
    }

    private static long seconds(Date date) {
        return date.getTime() / 1000;
    }

    private static CotalException refused(String reason) {
        return ExchangeArms.refused("identity proof: " + reason);
    }
}
