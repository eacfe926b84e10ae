package ai.cotal.auth.exchange;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.time.Duration;

/**
 * The identity provider's keys cannot be had now (SPEC §13.17): its JWKS cannot be fetched, or
 * the fetch budget is spent. {@code unavailable}, answered 503 with its own message, which names
 * the provider and nothing internal, and, for the spent budget, {@code Retry-After}.
 */
final class IdpKeysUnavailable extends CotalException {
    private static final long serialVersionUID = 1L;
    /** The body when a fetch failed. */
    static final String CANNOT_FETCH = "the identity provider's keys cannot be fetched now; retry shortly";

    private final long retryAfterSeconds;

    private IdpKeysUnavailable(String message, long retryAfterSeconds, Throwable cause) {
        super(ErrorCode.UNAVAILABLE, message, cause);
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** A fetch failed; {@code cause} (logged, never sent) says how. */
    static IdpKeysUnavailable cannotFetch(CotalException cause) {
        return new IdpKeysUnavailable(CANNOT_FETCH, 0, cause);
    }

    /** The fetch budget is spent for {@code refillIn} more (rounded up to whole seconds, at least 1). */
    static IdpKeysUnavailable budgetSpent(Duration refillIn) {
        long seconds = Math.max(1, (refillIn.toMillis() + 999) / 1000);
        return new IdpKeysUnavailable("the identity provider's keys were fetched too often; retry in " + seconds + " s",
                seconds, null);
    }

    /** The {@code Retry-After} seconds, or 0 for none. */
    long retryAfterSeconds() {
        return retryAfterSeconds;
    }

    /** What the log says: the message and, for a failed fetch, the cause's message (no path: it is a URL's kind of failure). */
    String detail() {
        return getCause() == null ? getMessage() : getMessage() + " (" + getCause().getMessage() + ")";
    }
}
