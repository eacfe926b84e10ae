package ai.cotal.core.creds;

import java.time.Duration;
import java.util.Optional;

/**
 * How long a profile's credentials live by default and how they are replaced.
 *
 * @param ttl      the default lifetime; empty for credentials without {@code exp}
 * @param renewal  how a holder gets a fresh one
 */
public record Lifetime(Optional<Duration> ttl, Renewal renewal) {
    /** How credentials of a profile are replaced. */
    public enum Renewal {
        /** Re-signed by the host before expiry (at 75% of iat to exp). */
        RENEWABLE,
        /** Minted for one task; a new task mints a new one. */
        ONE_SHOT,
        /** Replaced only when the system account rotates. */
        ROTATION,
        /** No expiry: revoked, never renewed. */
        NONE
    }

    static Lifetime of(long seconds, Renewal renewal) {
        return new Lifetime(Optional.of(Duration.ofSeconds(seconds)), renewal);
    }

    static Lifetime none() {
        return new Lifetime(Optional.empty(), Renewal.NONE);
    }
}
