package ai.cotal.cli;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * {@code cotal-auth serve --metrics [HOST:]PORT} (SPEC §13.21): a Prometheus registry the service
 * records into, served as {@code GET /metrics} in the text format on {@code 127.0.0.1:PORT}, or on
 * {@code HOST:PORT} when the operator names a host. Any other path answers 404, any other method
 * 405. Closing stops the listener. Thread-safe.
 */
final class MetricsEndpoint implements AutoCloseable {
    /** The text exposition format's content type. */
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final PrometheusMeterRegistry registry;
    private final HttpServer server;

    private MetricsEndpoint(PrometheusMeterRegistry registry, HttpServer server) {
        this.registry = registry;
        this.server = server;
    }

    /**
     * The address {@code --metrics} names: {@code PORT} (loopback) or {@code HOST:PORT} ({@code [v6]:PORT}
     * for IPv6); {@link IllegalArgumentException} naming the flag otherwise. Names are not resolved.
     */
    static InetSocketAddress address(String flag) {
        int colon = flag.lastIndexOf(':');
        String host = colon < 0 ? null : flag.substring(0, colon).replaceAll("^\\[(.*)]$", "$1");
        String port = colon < 0 ? flag : flag.substring(colon + 1);
        if (!port.matches("[0-9]{1,5}") || Integer.parseInt(port) > 65535) {
            throw new IllegalArgumentException("--metrics must be PORT or HOST:PORT (a port number 0 to 65535)");
        }
        if (host == null) {
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(port));
        }
        if (!host.matches("[0-9.]+|[0-9A-Fa-f:]+")) {
            throw new IllegalArgumentException("--metrics: the host must be an IP address (names are not resolved)");
        }
        try {
            return new InetSocketAddress(InetAddress.getByName(host), Integer.parseInt(port));
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException("--metrics: " + host + " is not an IP address");
        }
    }

    /** Binds {@code address} and serves a fresh registry; {@link IOException} when the port cannot be bound. */
    static MetricsEndpoint start(InetSocketAddress address) throws IOException {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        HttpServer server = HttpServer.create(address, 16);
        server.createContext("/", exchange -> {
            try (exchange) {
                byte[] body;
                int status;
                if (!exchange.getRequestURI().getPath().equals("/metrics")) {
                    status = 404;
                    body = "not found\n".getBytes(StandardCharsets.UTF_8);
                } else if (!exchange.getRequestMethod().equals("GET")) {
                    status = 405;
                    body = "GET only\n".getBytes(StandardCharsets.UTF_8);
                } else {
                    status = 200;
                    body = registry.scrape().getBytes(StandardCharsets.UTF_8);
                    exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
                }
                exchange.sendResponseHeaders(status, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
        });
        server.setExecutor(java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
            Thread thread = new Thread(r, "cotal-metrics");
            thread.setDaemon(true);
            return thread;
        }));
        server.start();
        return new MetricsEndpoint(registry, server);
    }

    PrometheusMeterRegistry registry() {
        return registry;
    }

    /** {@code http://<host>:<bound port>/metrics}. */
    String url() {
        InetSocketAddress bound = server.getAddress();
        String host = bound.getAddress().getHostAddress();
        return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + bound.getPort() + "/metrics";
    }

    @Override
    public void close() {
        server.stop(0);
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
        } catch (java.io.IOException e) {
            err.println(name + ": the metrics port cannot be bound (" + e.getClass().getSimpleName() + ")");
            return null;
        }
        out.println(name + ": metrics at " + metrics.url());
        return metrics;
    }
}
