package ai.cotal.servicehost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The client against a loopback HTTP server standing in for the routes. */
class ServiceEndpointHostClientTest {
    private static final String IID = "abcdefghijklmnopqrstuvwxyz";

    /** A stand-in route that answers {@code answer} (status 200) or a refusal, recording what it was sent. */
    private static HttpServer route(AtomicReference<String> seen, AtomicReference<String> path,
            AtomicReference<HostResult> answer) throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4);
        server.createContext("/", http -> {
            path.set(http.getRequestURI().getPath());
            seen.set(new String(http.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            boolean refuse = answer.get() == null;
            byte[] body = refuse ? "{\"error\":\"no such granter\"}".getBytes(StandardCharsets.UTF_8)
                    : HostJson.writeResult(answer.get());
            http.sendResponseHeaders(refuse ? 403 : 200, body.length);
            http.getResponseBody().write(body);
            http.close();
        });
        server.start();
        return server;
    }

    @Test
    void postsTheProofAndTheRequestToTheRightRouteAndReadsTheResult() throws Exception {
        AtomicReference<String> seen = new AtomicReference<>();
        AtomicReference<String> path = new AtomicReference<>();
        String rid = ServiceEndpointHostClient.newRequestId();
        AtomicReference<HostResult> answer = new AtomicReference<>(HostResult.of(HostResult.Status.PENDING,
                "abcdefghijklmnopqrstuvwxyz", null).withRequestId(rid));
        HttpServer server = route(seen, path, answer);
        try {
            ServiceEndpointHostClient client = new ServiceEndpointHostClient(URI.create("http://127.0.0.1:"
                    + server.getAddress().getPort()), HttpClient.newHttpClient(), Duration.ofSeconds(5));
            HostResult result = client.invoke("idp.jwt.token", new HostRequest.Register(rid, "com.example.weather", IID,
                    "sha256:" + "b".repeat(64), List.of("invoke")));
            assertEquals(HostResult.Status.PENDING, result.status());
            assertEquals(rid, result.requestId());
            assertEquals(ServiceEndpointHostClient.AUTHORITY_ROUTE, path.get());
            assertTrue(seen.get().startsWith("{\"idpToken\":\"idp.jwt.token\",\"request\":{\"kind\":\"register\""), seen.get());
            answer.set(null);
            ContractException e = assertThrows(ContractException.class, () -> client.invoke("idp.jwt.token",
                    new HostRequest.Revoke(rid, "weather", IID), "cap"));
            assertEquals("permission-denied", e.code());
            assertEquals(ServiceEndpointHostClient.HOST_ROUTE, path.get());
            assertTrue(e.getMessage().contains("no such granter"), e.getMessage());
        } finally {
            server.stop(0);
        }
    }

    @Test
    void anAnswerToAnotherRequestIsRefused() throws Exception {
        AtomicReference<String> seen = new AtomicReference<>();
        AtomicReference<String> path = new AtomicReference<>();
        String mine = ServiceEndpointHostClient.newRequestId();
        String theirs = ServiceEndpointHostClient.newRequestId();
        AtomicReference<HostResult> answer = new AtomicReference<>(HostResult.of(HostResult.Status.HELD, null, "tripped")
                .withRequestId(theirs));
        HttpServer server = route(seen, path, answer);
        try {
            ServiceEndpointHostClient client = new ServiceEndpointHostClient(URI.create("http://127.0.0.1:"
                    + server.getAddress().getPort()), HttpClient.newHttpClient(), Duration.ofSeconds(5));
            HostRequest.Revoke revoke = new HostRequest.Revoke(mine, "weather", IID);
            ContractException other = assertThrows(ContractException.class, () -> client.invoke("t", revoke));
            assertEquals("unavailable", other.code());
            assertTrue(other.getMessage().startsWith("requestId: "), other.getMessage());
            assertTrue(!other.getMessage().contains(theirs) && !other.getMessage().contains(mine), other.getMessage());
            answer.set(HostResult.of(HostResult.Status.HELD, null, "tripped"));
            assertEquals("unavailable", assertThrows(ContractException.class, () -> client.invoke("t", revoke)).code(),
                    "a write's answer without its requestId answers no request of ours");
            answer.set(HostResult.of(HostResult.Status.DENIED, null, "no such name").withRequestId(mine));
            assertEquals("unavailable", assertThrows(ContractException.class, () -> client.invoke("t",
                    new HostRequest.NameRead("forecast"))).code(), "a read's answer carries no requestId");
            answer.set(HostResult.of(HostResult.Status.DENIED, null, "no such name"));
            assertEquals(HostResult.Status.DENIED, client.invoke("t", new HostRequest.NameRead("forecast")).status());
        } finally {
            server.stop(0);
        }
    }

    @Test
    void mintedRequestIdsMatchTheGrammarAndDoNotRepeat() {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            String id = ServiceEndpointHostClient.newRequestId();
            assertTrue(id.matches("[A-Za-z0-9_-]{16,64}"), id);
            assertEquals(32, id.length());
            ids.add(id);
        }
        assertEquals(1000, ids.size());
        assertNotEquals(ServiceEndpointHostClient.newRequestId(), ServiceEndpointHostClient.newRequestId());
        new HostRequest.Decide(ServiceEndpointHostClient.newRequestId(), "weather", IID, HostRequest.Decision.APPROVE);
    }
}
