package ai.cotal.auth.exchange;

import ai.cotal.auth.internal.metrics.AuthMetrics;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.LoggerFactory;

/**
 * A metrics scrape endpoint on an HTTP face of its own (SPEC §13.21): {@code GET /metrics}
 * answers 200 with what {@code scrape} returns, as {@code contentType}; any other method on that
 * path answers 405 and any other path 404 ({@code {error}} JSON). The face is built as the token
 * exchange's faces are (SPEC §13.17), with bounds sized for a scraper: {@value #WORKER_THREADS}
 * threads (one accepts, one selects, the rest serve), {@value #MAX_CONNECTIONS} open connections,
 * {@value #MAX_CONNECTIONS_PER_PEER} per direct peer, and a request's headers must arrive within
 * {@link #READ_DEADLINE} of the connection's opening or the previous answer, else the connection
 * is closed unanswered. Headers are parsed as bytes arrive, so a slow or stalled client holds a
 * connection slot, never the thread a scrape needs. The face records no meters of its own. A
 * scrape that throws answers 500 (its class logged, nothing of it sent). Thread-safe.
 */
public final class MetricsFace implements AutoCloseable {
    /** The path served. */
    public static final String ROUTE = "/metrics";
    /** The face's threads: the fewest a face runs on. */
    public static final int WORKER_THREADS = FaceLimits.MIN_WORKER_THREADS;
    /** The face's open connections at most. */
    public static final int MAX_CONNECTIONS = 64;
    /** The open connections of one direct peer at most; the excess is closed as soon as it is accepted. */
    public static final int MAX_CONNECTIONS_PER_PEER = 16;
    /** How long a request's headers may take to arrive. */
    public static final Duration READ_DEADLINE = Duration.ofSeconds(10);

    private final HttpFace face;

    private MetricsFace(HttpFace face) {
        this.face = face;
    }

    /**
     * Binds {@code address} and serves {@code scrape} (called once per {@code GET /metrics}) as
     * {@code contentType}. An address that cannot be bound is {@code unavailable} naming the port,
     * and nothing is left running.
     */
    public static MetricsFace start(InetSocketAddress address, String contentType, Supplier<String> scrape) {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(contentType, "contentType");
        Objects.requireNonNull(scrape, "scrape");
        HttpFace.Bounds bounds = new HttpFace.Bounds(WORKER_THREADS, MAX_CONNECTIONS, MAX_CONNECTIONS_PER_PEER,
                READ_DEADLINE);
        return new MetricsFace(HttpFace.start(AuthMetrics.Face.METRICS, address, bounds, AuthMetrics.NONE,
                Optional.empty(), call -> serve(call, contentType, scrape)));
    }

    private static void serve(HttpCall call, String contentType, Supplier<String> scrape) {
        if (!call.path().equals(ROUTE)) {
            call.arrived();
            call.send(404, Map.of("error", "not found"));
        } else if (!call.method().equals("GET")) {
            call.refuseUnread(405, Map.of("error", "GET only"));
        } else {
            call.arrived();
            byte[] body;
            try {
                body = scrape.get().getBytes(StandardCharsets.UTF_8);
            } catch (RuntimeException e) {
                LoggerFactory.getLogger(MetricsFace.class).error("metrics: the scrape failed ({})",
                        e.getClass().getName());
                call.send(500, Map.of("error", Refusals.INTERNAL));
                return;
            }
            call.sendTyped(200, contentType, body);
        }
    }

    /** The bound address (the real port, also when {@code start} was given 0). */
    public InetSocketAddress address() {
        return face.address();
    }

    /** Stops the face. */
    @Override
    public void close() {
        face.close();
    }
}
