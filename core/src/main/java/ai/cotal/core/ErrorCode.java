package ai.cotal.core;

/**
 * The error catalog: every {@link CotalException} carries one of these codes. The wire form
 * ({@link #wire()}) is what JSON results and logs show.
 */
public enum ErrorCode {
    /** The caller's input is malformed or out of policy; nothing was written. */
    BAD_REQUEST("bad-request"),
    /** The caller is not allowed to do this. */
    PERMISSION_DENIED("permission-denied"),
    /** Authentication failed: a signature, a chain or a token did not verify. */
    UNAUTHENTICATED("unauthenticated"),
    NOT_FOUND("not-found"),
    ALREADY_EXISTS("already-exists"),
    /** A compare-and-set or a guard saw a different current state. */
    CONFLICT("conflict"),
    /** The system is not in the state this operation needs (e.g. a store drifted, a broker too old). */
    FAILED_PRECONDITION("failed-precondition"),
    DEADLINE_EXCEEDED("deadline-exceeded"),
    /** A dependency (broker, store) could not be reached; retrying may help. */
    UNAVAILABLE("unavailable"),
    UNIMPLEMENTED("unimplemented"),
    RESOURCE_EXHAUSTED("resource-exhausted"),
    /** Stored state is unreadable or inconsistent: fail closed, never guess. */
    DATA_LOSS("data-loss"),
    /** A bug or an unexpected failure inside the SDK. */
    INTERNAL("internal");

    private final String wire;

    ErrorCode(String wire) {
        this.wire = wire;
    }

    /** The kebab-case form used on the wire. */
    public String wire() {
        return wire;
    }
}
