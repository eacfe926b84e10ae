package ai.cotal.cli;

import ai.cotal.auth.exchange.MetricsFace;
import ai.cotal.core.CotalException;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * {@code cotal-auth serve --metrics [HOST:]PORT} (SPEC §13.21): a Prometheus registry the service
 * records into, served as {@code GET /metrics} in the text format on {@code 127.0.0.1:PORT}, or on
 * {@code HOST:PORT} when the operator names a host. Any other path answers 404, any other method
 * 405. The listener is a {@link MetricsFace}: a slow or stalled client holds a connection slot
 * until the read deadline cuts it, never the thread a scrape needs. Closing stops the listener.
 * Thread-safe.
 */
final class MetricsEndpoint implements AutoCloseable {
    /** The text exposition format's content type. */
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final PrometheusMeterRegistry registry;
    private final MetricsFace server;

    private MetricsEndpoint(PrometheusMeterRegistry registry, MetricsFace server) {
        this.registry = registry;
        this.server = server;
    }

    /** The address {@code --metrics} names: as {@link Flags#address(String, String)}. */
    static InetSocketAddress address(String flag) {
        return Flags.address("--metrics", flag);
    }

    /**
     * Binds {@code address} and serves a fresh registry on a face of its own ({@link MetricsFace}: the
     * exchange's bounded server, its read deadline and connection caps); {@code unavailable} when
     * the port cannot be bound.
     */
    static MetricsEndpoint start(InetSocketAddress address) {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try {
            return new MetricsEndpoint(registry, MetricsFace.start(address, CONTENT_TYPE, registry::scrape));
        } catch (RuntimeException e) {
            registry.close();
            throw e;
        }
    }

    PrometheusMeterRegistry registry() {
        return registry;
    }

    /** {@code http://<host>:<bound port>/metrics}. */
    String url() {
        InetSocketAddress bound = server.address();
        String host = bound.getAddress().getHostAddress();
        return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + bound.getPort() + "/metrics";
    }

    @Override
    public void close() {
        server.close();
        registry.close();
    }

    /** The address of a command's {@code --metrics} flag; null without one; malformed: as {@link #address(String)}. */
    static InetSocketAddress address(java.util.Map<String, java.util.List<String>> flags) {
        return flags.containsKey("--metrics") ? address(flags.get("--metrics").get(0)) : null;
    }

    /**
     * Starts the endpoint for a command named {@code name} and says where on {@code out}; null
     * when the port cannot be bound (said on {@code err}: the command exits 1).
     */
    static MetricsEndpoint startOrReport(java.net.InetSocketAddress address, String name, java.io.PrintStream out,
            java.io.PrintStream err) {
        MetricsEndpoint metrics;
        try {
            metrics = start(address);
        } catch (CotalException e) {
            err.println(name + ": the metrics port cannot be bound (" + e.code().wire() + ")");
            return null;
        }
        out.println(name + ": metrics at " + metrics.url());
        return metrics;
    }
}
