package ai.cotal.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.exchange.MetricsFace;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The {@code --metrics} endpoint with real sockets: a client trickling half a request holds no
 * thread a scrape needs, and is cut unanswered at the face's read deadline (SPEC §13.21).
 */
class MetricsEndpointTest {
    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> scrape(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aClientTricklingHalfARequestBlocksNoScrapeAndIsCutAtTheReadDeadline() throws Exception {
        try (MetricsEndpoint metrics = MetricsEndpoint.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             Socket slow = new Socket()) {
            metrics.registry().counter("cotal.test.scraped").increment();
            URI url = URI.create(metrics.url());
            slow.connect(new InetSocketAddress(url.getHost(), url.getPort()), 5_000);
            // the guard: a server that never cuts the trickle fails the test instead of hanging it
            slow.setSoTimeout((int) MetricsFace.READ_DEADLINE.toMillis() + 10_000);
            OutputStream out = slow.getOutputStream();
            out.write("GET /metrics HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            AtomicInteger trickled = new AtomicInteger();
            Thread trickle = new Thread(() -> {
                try {
                    while (true) {
                        out.write('a'); // a header that never ends
                        out.flush();
                        trickled.incrementAndGet();
                        Thread.sleep(50); // the attack's pace, not a wait for an event
                    }
                } catch (IOException | InterruptedException e) {
                    // the server cut the connection: the trickle ends
                }
            }, "metrics-trickle");
            trickle.setDaemon(true);
            trickle.start();

            for (int i = 0; i < 3; i++) {
                HttpResponse<String> answer = scrape(metrics.url());
                assertEquals(200, answer.statusCode());
                assertEquals(MetricsEndpoint.CONTENT_TYPE, answer.headers().firstValue("Content-Type").orElseThrow());
                assertTrue(answer.body().contains("cotal_test_scraped_total 1.0"), answer.body());
                assertTrue(trickle.isAlive(), "scraped while the trickle went on");
            }
            assertEquals(404, scrape(metrics.url().replace("/metrics", "/other")).statusCode());

            InputStream in = slow.getInputStream();
            int read;
            try {
                read = in.read();
            } catch (SocketException reset) {
                read = -1; // reset by the server: cut as well
            }
            assertEquals(-1, read, "the trickling client is cut unanswered at the read deadline");
            trickle.join(10_000);
            assertTrue(trickled.get() > 3, "it kept sending until cut (" + trickled.get() + " bytes)");
        }
    }
}
