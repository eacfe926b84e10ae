package ai.cotal.auth;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP relay in front of a broker for the plane's connections of space {@code alpha},
 * with two faults. Once {@link #arm armed}, it holds back the broker's delivery of a served run
 * request to the issuer connection ({@code cotal:auth-issuer:alpha}): the chunk carrying it
 * reaches the plane {@code delay} later, and what follows it (a flush's PONG) only after it. So a
 * look at the observations that does not flush first finds nothing, and one that flushes first
 * finds it (SPEC §14.8). While {@link #refuseWindows refusing}, an issuer window's connection
 * ({@code cotal:auth-issuer-window:alpha}) is closed at its {@code CONNECT}, which never reaches
 * the broker: the window cannot be opened (SPEC §14.7). Every other connection, and the issuer's
 * other traffic, is relayed as it comes.
 */
final class IssuerFaultProxy implements AutoCloseable {
    private static final byte[] SERVED = "MSG cotal.alpha.svc.manager.".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ISSUER = "\"name\":\"cotal:auth-issuer:alpha\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] WINDOW = "\"name\":\"cotal:auth-issuer-window:alpha\"".getBytes(
            StandardCharsets.US_ASCII);
    private final ServerSocket listener;
    private final URI upstream;
    private final Duration delay;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean armed;
    private volatile boolean refusing;
    private final AtomicInteger refused = new AtomicInteger();

    IssuerFaultProxy(String upstreamUrl, Duration delay) throws IOException {
        this.upstream = URI.create(upstreamUrl);
        this.delay = delay;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(this::accept, "issuer-fault-proxy");
        accept.setDaemon(true);
        accept.start();
    }

    String url() {
        return "nats://127.0.0.1:" + listener.getLocalPort();
    }

    /** From now on the issuer's served request deliveries are held back. */
    void arm() {
        armed = true;
    }

    /** From now on (while {@code refuse}) every issuer window's connection is closed at its CONNECT. */
    void refuseWindows(boolean refuse) {
        refusing = refuse;
    }

    /** How many issuer window connections were closed at their CONNECT so far. */
    int refusedWindows() {
        return refused.get();
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(upstream.getHost(), upstream.getPort());
                sockets.add(client);
                sockets.add(server);
                boolean[] issuer = new boolean[1];
                relay(client.getInputStream(), server.getOutputStream(), chunk -> {
                    if (contains(chunk, ISSUER)) {
                        issuer[0] = true;
                    }
                    if (refusing && contains(chunk, WINDOW)) {
                        refused.incrementAndGet();
                        return false; // the CONNECT is dropped and both sides closed
                    }
                    return true;
                }, client);
                relay(server.getInputStream(), client.getOutputStream(), chunk -> {
                    if (armed && issuer[0] && contains(chunk, SERVED)) {
                        try {
                            Thread.sleep(delay.toMillis()); // the injected latency, not a wait for an event
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    return true;
                }, server);
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    /** Looks at one chunk before it is relayed; false drops it and closes both sides. */
    private interface Inspect {
        boolean chunk(byte[] chunk);
    }

    /** Relays {@code in} to {@code out}; {@code source} is the socket {@code in} reads, closed when a chunk is dropped. */
    private static void relay(InputStream in, OutputStream out, Inspect inspect, Socket source) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[64 * 1024];
            try {
                for (int n; (n = in.read(buffer)) >= 0;) {
                    if (!inspect.chunk(java.util.Arrays.copyOf(buffer, n))) {
                        source.close();
                        return; // the finally closes out
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side closed
            } finally {
                try {
                    out.close();
                } catch (IOException e) {
                    // already closed
                }
            }
        }, "issuer-fault-relay");
        t.setDaemon(true);
        t.start();
    }

    private static boolean contains(byte[] chunk, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= chunk.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (chunk[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket socket : sockets) {
            socket.close();
        }
    }
}
