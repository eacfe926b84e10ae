package ai.cotal.servicehost;

/**
 * A refusal of the service-host contract: {@link #code()} is the SDK's catalog code in wire form
 * ({@code bad-request}, {@code unavailable}, ...), the message names the field. This module
 * depends on no other SDK module; the engine maps these to its own exceptions one to one.
 */
public final class ContractException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String code;

    /** A refusal with catalog code {@code code} (wire form, e.g. {@code unavailable}) and {@code message}. */
    public ContractException(String code, String message) {
        super(message);
        this.code = code;
    }

    /** A refusal with catalog code {@code code}, {@code message} and the {@code cause} behind it. */
    public ContractException(String code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    /** The catalog code, e.g. {@code bad-request}. */
    public String code() {
        return code;
    }

    /** A {@code bad-request} refusal whose message is {@code field: problem}. */
    public static ContractException badRequest(String field, String problem) {
        return new ContractException("bad-request", field + ": " + problem);
    }
}
