package ai.cotal.servicehost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The client against a loopback HTTP server standing in for the routes. */
class ServiceEndpointHostClientTest {
    @Test
    void postsTheProofAndTheRequestToTheRightRouteAndReadsTheResult() throws Exception {
        AtomicReference<String> seen = new AtomicReference<>();
        AtomicReference<String> path = new AtomicReference<>();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4);
        server.createContext("/", http -> {
            path.set(http.getRequestURI().getPath());
            seen.set(new String(http.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            boolean refuse = seen.get().contains("\"revoke\"");
            byte[] body = refuse ? "{\"error\":\"no such granter\"}".getBytes(StandardCharsets.UTF_8)
                    : HostJson.writeResult(HostResult.of(HostResult.Status.PENDING, "abcdefghijklmnopqrstuvwxyz", null));
            http.sendResponseHeaders(refuse ? 403 : 200, body.length);
            http.getResponseBody().write(body);
            http.close();
        });
        server.start();
        try {
            ServiceEndpointHostClient client = new ServiceEndpointHostClient(URI.create("http://127.0.0.1:"
                    + server.getAddress().getPort()), HttpClient.newHttpClient(), Duration.ofSeconds(5));
            HostResult result = client.invoke("idp.jwt.token", "laptop", new HostRequest.Register("req-0123456789abcdef", "weather",
                    "abcdefghijklmnopqrstuvwxyz", "sha256:" + "b".repeat(64), List.of("invoke")), null);
            assertEquals(HostResult.Status.PENDING, result.status());
            assertEquals(ServiceEndpointHostClient.AUTHORITY_ROUTE, path.get());
            assertTrue(seen.get().startsWith("{\"idpToken\":\"idp.jwt.token\",\"actor\":\"laptop\",\"request\":{\"kind\":\"register\""), seen.get());
            ContractException e = assertThrows(ContractException.class, () -> client.invoke("idp.jwt.token", "laptop",
                    new HostRequest.Revoke("req-0123456789abcdef", "weather", "abcdefghijklmnopqrstuvwxyz"), "cap"));
            assertEquals("permission-denied", e.code());
            assertEquals(ServiceEndpointHostClient.HOST_ROUTE, path.get());
            assertTrue(e.getMessage().contains("no such granter"), e.getMessage());
        } finally {
            server.stop(0);
        }
    }
}
