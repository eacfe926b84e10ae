package ai.cotal.core.internal.connect;

import io.nats.client.Connection;
import io.nats.client.ConnectionListener;

/**
 * A {@link ConnectionListener} written against jnats' four-argument event only: jnats calls that
 * form, and the deprecated two-argument one (still abstract in jnats) forwards to it, so each
 * listener in the SDK implements one method. Not API.
 */
@FunctionalInterface
public interface ConnectionEvents extends ConnectionListener {
    @Deprecated
    @Override
    default void connectionEvent(Connection conn, Events type) {
        connectionEvent(conn, type, null, null);
    }

    @Override
    void connectionEvent(Connection conn, Events type, Long time, String uriDetails);
}
