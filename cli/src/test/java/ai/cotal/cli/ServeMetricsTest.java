package ai.cotal.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.testbroker.BackendChoice;
import ai.cotal.testbroker.NatsBroker;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code cotal-auth serve --metrics}: a Prometheus scrape of the service's meters (SPEC §13.21). */
@Tag("broker")
class ServeMetricsTest {
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final HttpClient http = HttpClient.newHttpClient();

    private int run(String... args) {
        return CotalAuth.run(args, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private HttpResponse<String> send(String url, String method) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).method(method, HttpRequest.BodyPublishers.noBody())
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aBadMetricsFlagIsAUsageError() {
        for (String bad : new String[] {"port", "70000", "example.org:9464", "127.0.0.1:"}) {
            err.reset();
            assertEquals(2, run("serve", "--space", "alpha", "--server", "nats://x", "--root", "r", "--metrics", bad), bad);
            assertTrue(err.toString(StandardCharsets.UTF_8).contains("--metrics"), err.toString(StandardCharsets.UTF_8));
        }
    }

    @Test
    void serveExposesTheServicesMetersForPrometheus(@TempDir Path root) throws Exception {
        ProvisionedSpace alpha = new ProvisionedSpace(root, Clock.systemUTC());
        try (NatsBroker nats = NatsBroker.start(BackendChoice.detect(), alpha::config)) {
            CompletableFuture<String> metrics = new CompletableFuture<>();
            CompletableFuture<String> serving = new CompletableFuture<>();
            PrintStream lines = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8) {
                @Override
                public void println(String line) {
                    if (line.contains("metrics at")) {
                        metrics.complete(line.substring(line.indexOf("http")));
                    }
                    if (line.contains("serving at")) {
                        serving.complete(line.substring(line.indexOf("http")));
                    }
                }
            };
            CompletableFuture<Void> stop = new CompletableFuture<>();
            ExecutorService serveThread = Executors.newSingleThreadExecutor();
            CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> CotalAuth.run(new String[] {"serve",
                    "--space", "alpha", "--server", nats.url(), "--root", root.toString(), "--metrics", "0"}, lines,
                    new PrintStream(err, true, StandardCharsets.UTF_8), stop), serveThread);
            serveThread.shutdown();
            String url = metrics.get(30, TimeUnit.SECONDS);
            assertTrue(url.startsWith("http://127.0.0.1:") && url.endsWith("/metrics"), "loopback by default: " + url);
            assertEquals(200, send(serving.get(30, TimeUnit.SECONDS) + "/health", "GET").statusCode());
            HttpResponse<String> scrape = send(url, "GET");
            assertEquals(200, scrape.statusCode());
            assertEquals(MetricsEndpoint.CONTENT_TYPE, scrape.headers().firstValue("Content-Type").orElseThrow());
            for (String sample : new String[] {"cotal_auth_plane_state{state=\"open\"} 1.0",
                    "cotal_auth_callout_answering 1.0",
                    "cotal_auth_http_requests_total{face=\"loopback\",route=\"health\",status=\"200\"} 1.0",
                    "cotal_auth_store_fill{store=\"auth\"}"}) {
                assertTrue(scrape.body().contains(sample), "missing " + sample + " in\n" + scrape.body());
            }
            assertEquals(405, send(url, "POST").statusCode());
            assertEquals(404, send(url.replace("/metrics", "/other"), "GET").statusCode());
            stop.complete(null);
            assertEquals(0, exit.get(30, TimeUnit.SECONDS), err.toString(StandardCharsets.UTF_8));
        }
    }
}
