package ai.cotal.core;

import java.util.Objects;

/**
 * The one exception type every public API of the SDK throws. It carries a catalog
 * {@link ErrorCode} and an operator-legible message that names the offending field. Messages
 * never contain secrets (seeds, signing keys, bearer tokens).
 */
public class CotalException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ErrorCode code;

    public CotalException(ErrorCode code, String message) {
        super(message);
        this.code = Objects.requireNonNull(code, "code");
    }

    public CotalException(ErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = Objects.requireNonNull(code, "code");
    }

    public ErrorCode code() {
        return code;
    }

    /** Bad input: {@code field} names what was wrong. */
    public static CotalException badRequest(String field, String problem) {
        return new CotalException(ErrorCode.BAD_REQUEST, field + ": " + problem);
    }

    public static CotalException unauthenticated(String message) {
        return new CotalException(ErrorCode.UNAUTHENTICATED, message);
    }

    public static CotalException failedPrecondition(String message) {
        return new CotalException(ErrorCode.FAILED_PRECONDITION, message);
    }

    public static CotalException internal(String message, Throwable cause) {
        return new CotalException(ErrorCode.INTERNAL, message, cause);
    }

    @Override
    public String toString() {
        return "CotalException[" + code.wire() + "]: " + getMessage();
    }
}
