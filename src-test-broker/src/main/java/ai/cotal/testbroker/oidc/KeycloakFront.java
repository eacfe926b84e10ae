package ai.cotal.testbroker.oidc;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The loopback front every request to a {@link KeycloakServer} goes through: Keycloak is started
 * with its hostname set to this front, so its tokens' {@code iss}, its discovery document and its
 * JWKS all name the front. The front forwards each request to Keycloak as it came and counts the
 * JWKS requests ({@code .../protocol/openid-connect/certs}); while {@linkplain #down(boolean)
 * down} it answers every request 503 without forwarding, as a provider that is down does.
 */
final class KeycloakFront implements AutoCloseable {
    private static final Set<String> HOP_BY_HOP = Set.of("connection", "content-length", "host", "transfer-encoding",
            "upgrade", "keep-alive", "expect", "te", "trailer", "proxy-connection");
    private static final String CERTS = "/protocol/openid-connect/certs";

    private final HttpServer server;
    private final ExecutorService pool = Executors.newFixedThreadPool(4, r -> {
        Thread t = new Thread(r, "keycloak-front");
        t.setDaemon(true);
        return t;
    });
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER).build();
    private final AtomicInteger jwksFetches = new AtomicInteger();
    private volatile int backendPort;
    private volatile boolean down;

    KeycloakFront() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        server.setExecutor(pool);
        server.createContext("/", this::forward);
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    void backend(int port) {
        backendPort = port;
    }

    int jwksFetches() {
        return jwksFetches.get();
    }

    void down(boolean down) {
        this.down = down;
    }

    private void forward(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getRawPath();
            if (down || backendPort == 0) {
                exchange.sendResponseHeaders(503, -1);
                return;
            }
            if (path.endsWith(CERTS)) { // counted when it reaches Keycloak
                jwksFetches.incrementAndGet();
            }
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            String query = exchange.getRequestURI().getRawQuery();
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + backendPort + path
                    + (query == null ? "" : "?" + query))).timeout(Duration.ofSeconds(60))
                    .method(exchange.getRequestMethod(), body.length == 0 ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofByteArray(body));
            for (Map.Entry<String, List<String>> header : exchange.getRequestHeaders().entrySet()) {
                if (!HOP_BY_HOP.contains(header.getKey().toLowerCase(java.util.Locale.ROOT))) {
                    header.getValue().forEach(v -> request.header(header.getKey(), v));
                }
            }
            HttpResponse<byte[]> answer;
            try {
                answer = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                exchange.sendResponseHeaders(503, -1);
                return;
            } catch (IOException e) {
                exchange.sendResponseHeaders(502, -1);
                return;
            }
            answer.headers().map().forEach((name, values) -> {
                if (!HOP_BY_HOP.contains(name.toLowerCase(java.util.Locale.ROOT)) && !name.startsWith(":")) {
                    exchange.getResponseHeaders().put(name, values);
                }
            });
            byte[] out = answer.body();
            exchange.sendResponseHeaders(answer.statusCode(), out.length == 0 ? -1 : out.length);
            if (out.length > 0) {
                try (OutputStream os = exchange.getResponseBody()) {
                    os.write(out);
                }
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        pool.shutdownNow();
    }
}
