package ai.cotal.auth.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link MetricsFace}: its one route, its refusals, a failing scrape and a port in use. */
class MetricsFaceTest {
    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> send(MetricsFace face, String path, String method) throws Exception {
        URI url = URI.create("http://127.0.0.1:" + face.address().getPort() + path);
        return http.send(HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(10))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void servesTheScrapeAndRefusesEverythingElse() throws Exception {
        InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        try (MetricsFace face = MetricsFace.start(any, "text/plain; charset=utf-8", () -> "up 1\n")) {
            HttpResponse<String> scrape = send(face, "/metrics", "GET");
            assertEquals(200, scrape.statusCode());
            assertEquals("up 1\n", scrape.body());
            assertEquals("text/plain; charset=utf-8", scrape.headers().firstValue("Content-Type").orElseThrow());
            assertEquals(405, send(face, "/metrics", "POST").statusCode());
            assertEquals(404, send(face, "/other", "GET").statusCode());
            CotalException taken = assertThrows(CotalException.class, () -> MetricsFace.start(face.address(), "text/plain",
                    () -> ""));
            assertEquals(ErrorCode.UNAVAILABLE, taken.code(), "a port in use");
            assertTrue(taken.getMessage().contains(Integer.toString(face.address().getPort())), taken.getMessage());
        }
        try (MetricsFace failing = MetricsFace.start(any, "text/plain", () -> {
            throw new IllegalStateException("/secret/path");
        })) {
            HttpResponse<String> answer = send(failing, "/metrics", "GET");
            assertEquals(500, answer.statusCode());
            assertFalse(answer.body().contains("/secret") || answer.body().contains("IllegalState"), answer.body());
        }
    }
}
