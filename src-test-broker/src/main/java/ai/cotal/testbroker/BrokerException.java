package ai.cotal.testbroker;

/**
 * A test broker could not be found, started, reloaded or stopped. The message says what failed and,
 * where one helps, the command that fixes it; the broker's log tail is attached when it exists.
 */
public final class BrokerException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public BrokerException(String message) {
        super(message);
    }

    public BrokerException(String message, Throwable cause) {
        super(message, cause);
    }
}
