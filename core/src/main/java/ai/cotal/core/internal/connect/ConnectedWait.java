package ai.cotal.core.internal.connect;

import io.nats.client.Connection;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Waits for a connection that is reconnecting, instead of failing at once or leaving a request in
 * jnats' reconnect buffer. A standing connection whose JWT expires is dropped by the broker and
 * comes back with its renewed JWT within a few hundred milliseconds; a read can wait that out,
 * then run, and run once more when the connection turned over under it. Thread-safe.
 */
public final class ConnectedWait implements ConnectionEvents {
    /** How long an operation waits for its connection to come back. */
    public static final Duration RECONNECT_WAIT = Duration.ofSeconds(2);
    /**
     * How many times {@link #run(Op, Op)} runs an operation whose every failure met a turnover:
     * a retry can meet the next turnover too when the JWT lifetime is short or the machine is
     * slow (the reconnect with the renewed JWT, then another drop).
     */
    static final int MAX_RUNS = 3;

    /** One broker operation; {@code E} is the checked exception it adds to {@link IOException}. */
    @FunctionalInterface
    public interface Op<T, E extends Exception> {
        T run() throws IOException, E;
    }

    /** One watch per connection, however many stores ask (a listener per ask would pile up). */
    private static final java.util.Map<Connection, ConnectedWait> WATCHES = new java.util.WeakHashMap<>();

    private final java.lang.ref.WeakReference<Connection> connection;
    private final Object signal = new Object();
    private final AtomicLong reconnects = new AtomicLong();
    /** Disconnects and reconnects seen: jnats fires DISCONNECTED as the socket drops, before a lost reply times out. */
    private final AtomicLong turnovers = new AtomicLong();

    private ConnectedWait(Connection connection) {
        this.connection = new java.lang.ref.WeakReference<>(connection);
    }

    /** The watch on {@code connection}: made (and added as one of its listeners) on first use. */
    public static ConnectedWait on(Connection connection) {
        synchronized (WATCHES) {
            return WATCHES.computeIfAbsent(connection, c -> {
                ConnectedWait wait = new ConnectedWait(c);
                c.addConnectionListener(wait);
                return wait;
            });
        }
    }

    private Connection.Status status() {
        Connection c = connection.get();
        return c == null ? Connection.Status.CLOSED : c.getStatus();
    }


    @Override
    public void connectionEvent(Connection conn, Events type, Long time, String uriDetails) {
        if (type == Events.RECONNECTED) {
            reconnects.incrementAndGet();
        }
        if (type == Events.RECONNECTED || type == Events.DISCONNECTED) {
            turnovers.incrementAndGet();
        }
        synchronized (signal) {
            signal.notifyAll();
        }
    }

    /**
     * Waits until the connection is connected, at most {@code wait}. True when it is; false on
     * timeout, once it is closed, or on interrupt (the interrupt is kept).
     */
    public boolean await(Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        synchronized (signal) {
            while (status() != Connection.Status.CONNECTED) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || status() == Connection.Status.CLOSED) {
                    return false;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(signal, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return true;
        }
    }

    /** How many times the connection has reconnected since this watch began. */
    public long reconnects() {
        return reconnects.get();
    }

    /** {@link #run(Op, Op)} with the same operation both times. */
    public <T, E extends Exception> T run(Op<T, E> op) throws IOException, E {
        return run(op, op);
    }

    /**
     * Runs {@code first} once the connection is connected (waiting at most
     * {@link #RECONNECT_WAIT}). When it fails with an {@link IOException} or jnats'
     * {@link IllegalStateException} and the connection turned over meanwhile (its answer was lost),
     * runs {@code retry}, after waiting again; and so on while each failure met a turnover, at most
     * {@link #MAX_RUNS} runs in all. A failure without a turnover, a connection that does not come
     * back (an {@link IOException}) and any other failure end it; the last is the operation's own.
     */
    public <T, E extends Exception> T run(Op<T, E> first, Op<T, E> retry) throws IOException, E {
        for (int attempt = 0;; attempt++) {
            if (!await(RECONNECT_WAIT)) {
                throw new IOException("the connection is " + status().name().toLowerCase(java.util.Locale.ROOT)
                        + " and did not come back within " + RECONNECT_WAIT.toSeconds() + " s");
            }
            long before = mark();
            try {
                return (attempt == 0 ? first : retry).run();
            } catch (IOException | IllegalStateException e) {
                if (attempt + 1 >= MAX_RUNS || !turnedOver(before)) {
                    throw e;
                }
            }
        }
    }

    /** A mark to pass to {@link #turnedOver} after an operation. */
    public long mark() {
        return turnovers.get();
    }

    /** Whether the connection dropped or came back since {@code mark}, or is not connected now. */
    public boolean turnedOver(long mark) {
        return turnovers.get() != mark || status() != Connection.Status.CONNECTED;
    }
}
