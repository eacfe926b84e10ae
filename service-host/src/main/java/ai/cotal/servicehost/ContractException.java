package ai.cotal.servicehost;

/**
 * A refusal of the service-host contract: {@link #code()} is the SDK's catalog code in wire form
 * ({@code bad-request}, {@code unavailable}, ...), the message names the field. This module
 * depends on no other SDK module; the engine maps these to its own exceptions one to one.
 */
public final class ContractException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String code;

    public ContractException(String code, String message) {
        super(message);
        this.code = code;
    }

    public ContractException(String code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    /** The catalog code, e.g. {@code bad-request}. */
    public String code() {
        return code;
    }

    public static ContractException badRequest(String field, String problem) {
        return new ContractException("bad-request", field + ": " + problem);
    }
}
