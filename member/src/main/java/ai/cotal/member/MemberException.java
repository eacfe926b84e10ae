package ai.cotal.member;

/**
 * Why joining, exchanging or renewing failed: {@link #code()} is the exchange's error code
 * ({@code bad-request}, {@code unauthenticated}, {@code permission-denied}, {@code not-found},
 * {@code conflict}, {@code resource-exhausted}, {@code unavailable}, {@code internal}), the message
 * names the field or carries the service's own refusal text. No message carries a token or a
 * credential.
 */
public final class MemberException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String code;

    MemberException(String code, String message) {
        super(message);
        this.code = code;
    }

    MemberException(String code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    static MemberException badRequest(String field, String problem) {
        return new MemberException("bad-request", field + ": " + problem);
    }

    /** The error code, one of the words above. */
    public String code() {
        return code;
    }
}
