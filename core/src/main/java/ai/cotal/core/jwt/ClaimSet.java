package ai.cotal.core.jwt;

import java.time.Instant;
import java.util.Objects;

/**
 * A NATS JWT's claims: the registered fields and the typed {@code nats} body. Times are unix
 * seconds. {@code jti} and {@code iss} are filled in by {@link NatsJwt#encode}; a decoded set
 * carries what the token held. Immutable.
 */
public record ClaimSet<C extends NatsClaim>(String jti, long iat, String iss, String name, String sub, String aud,
        Long exp, Long nbf, C nats) {
    public ClaimSet {
        Objects.requireNonNull(nats, "nats");
    }

    /** Claims to be signed: subject, name, body, issued at {@code now}, no expiry. */
    public static <C extends NatsClaim> ClaimSet<C> of(String sub, String name, C nats, Instant now) {
        return new ClaimSet<>(null, now.getEpochSecond(), null, name, sub, null, null, null, nats);
    }

    public ClaimSet<C> withExp(Long expiresAt) {
        return new ClaimSet<>(jti, iat, iss, name, sub, aud, expiresAt, nbf, nats);
    }

    public ClaimSet<C> withAud(String audience) {
        return new ClaimSet<>(jti, iat, iss, name, sub, audience, exp, nbf, nats);
    }

    public ClaimSet<C> withNbf(Long notBefore) {
        return new ClaimSet<>(jti, iat, iss, name, sub, aud, exp, notBefore, nats);
    }

    public ClaimSet<C> withIat(long issuedAt) {
        return new ClaimSet<>(jti, issuedAt, iss, name, sub, aud, exp, nbf, nats);
    }

    ClaimSet<C> signedBy(String issuer, String id) {
        return new ClaimSet<>(id, iat, issuer, name, sub, aud, exp, nbf, nats);
    }

    public ClaimType type() {
        return nats.claimType();
    }
}
