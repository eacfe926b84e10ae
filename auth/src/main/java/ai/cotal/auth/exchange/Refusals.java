package ai.cotal.auth.exchange;

import ai.cotal.auth.internal.text.RefusalText;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one mapping from a typed failure to an HTTP answer, for {@code /exchange} and the
 * service-endpoint routes alike (SPEC §13.17): {@code bad-request} 400, {@code unauthenticated}
 * 401, {@code permission-denied} 403, {@code not-found} 404, {@code already-exists},
 * {@code conflict} and {@code failed-precondition} 409, {@code resource-exhausted} 429 (with the
 * message, which names the limit), {@code unavailable} and {@code deadline-exceeded} 503, anything
 * else 500. A 5xx body names only the kind of failure; its detail is logged here ({@link
 * IdpKeysUnavailable}'s body names the identity provider instead of the plane). A 4xx body
 * carries the refusal's message unless it holds a path or exception text, when it names the kind.
 */
final class Refusals {
    private static final Logger LOG = LoggerFactory.getLogger(Refusals.class);

    /** The 503 body: the plane (broker or store) is not reachable now. */
    static final String UNAVAILABLE = "the authority plane is unavailable - retry shortly";
    /** The 500 body. */
    static final String INTERNAL = "internal error - retry the same request";

    private Refusals() {
    }

    static int status(ErrorCode code) {
        return switch (code) {
            case BAD_REQUEST -> 400;
            case UNAUTHENTICATED -> 401;
            case PERMISSION_DENIED -> 403;
            case NOT_FOUND -> 404;
            case ALREADY_EXISTS, CONFLICT, FAILED_PRECONDITION -> 409;
            case RESOURCE_EXHAUSTED -> 429;
            case UNAVAILABLE, DEADLINE_EXCEEDED -> 503;
            default -> 500;
        };
    }

    /** The answer's body text for {@code e} on {@code route}; a 5xx detail is logged, never sent. */
    static String message(CotalException e, String route) {
        int status = status(e.code());
        if (status >= 500) {
            if (e instanceof IdpKeysUnavailable idp) { // the provider's keys, not the plane: its own body
                LOG.warn("{}: {}: {}", route, e.code().wire(), idp.detail());
                return idp.getMessage();
            }
            if (status == 503) {
                LOG.warn("{}: {}: {}", route, e.code().wire(), e.getMessage());
                return UNAVAILABLE;
            }
            LOG.error("{}: {}: {}", route, e.code().wire(), e.getMessage());
            return INTERNAL;
        }
        return safe(e.getMessage(), e.code());
    }

    /** The {@code Retry-After} seconds {@code e} asks for, or 0 for none. */
    static long retryAfter(CotalException e) {
        return e instanceof IdpKeysUnavailable idp ? idp.retryAfterSeconds() : 0;
    }

    /** {@code message}, or the kind of refusal when {@link RefusalText} (the rule of every face) withholds it. */
    static String safe(String message, ErrorCode code) {
        if (message == null || message.isEmpty() || !RefusalText.shareable(message)) {
            return "refused: " + code.wire();
        }
        return message;
    }
}
