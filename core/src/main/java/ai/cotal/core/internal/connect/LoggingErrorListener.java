package ai.cotal.core.internal.connect;

import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports jnats connection errors through slf4j (jnats' default writes to java.util.logging at
 * SEVERE): broker errors at warn, transport exceptions at debug (reconnects report them).
 */
public class LoggingErrorListener implements ErrorListener {
    private static final Logger LOG = LoggerFactory.getLogger(LoggingErrorListener.class);

    @Override
    public void errorOccurred(Connection conn, String error) {
        LOG.warn("nats {}: broker error: {}", name(conn), error);
    }

    @Override
    public void exceptionOccurred(Connection conn, Exception exp) {
        LOG.debug("nats {}: {}", name(conn), exp.toString());
    }

    private static String name(Connection conn) {
        return conn == null ? "?" : conn.getOptions().getConnectionName();
    }
}
