package ai.cotal.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The service check reads the loopback health that says why (SPEC §13.21) and names a plane that is not serving. */
class ServiceCheckTest {
    private static String check(String body) throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4);
        server.createContext("/health", http -> {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            http.sendResponseHeaders(200, bytes.length);
            http.getResponseBody().write(bytes);
            http.close();
        });
        server.start();
        try {
            return ServiceCheck.refusal(HttpClient.newHttpClient(), URI.create("http://127.0.0.1:"
                    + server.getAddress().getPort()), "alpha", null);
        } finally {
            server.stop(0);
        }
    }

    @Test
    void aServiceWhosePlaneIsNotOpenIsNamedAsSuch() throws Exception {
        String where = "the service at http://127.0.0.1:";
        String fenced = check("{\"ok\":false,\"issuer\":\"urn:cotal:auth:alpha\",\"plane\":{\"state\":\"fenced\"},"
                + "\"callout\":{\"answering\":false,\"status\":\"connected\"},\"connections\":[],\"stores\":[]}");
        assertEquals("is the auth service of space \"alpha\" but is not serving (plane fenced, callout not answering)",
                fenced.substring(fenced.indexOf(" is the ") + 1), fenced);
        String odd = check("{\"ok\":false,\"issuer\":\"urn:cotal:auth:alpha\",\"plane\":{\"state\":\"<b>x\\n\"}}");
        assertEquals("is the auth service of space \"alpha\" but is not serving (plane unknown)",
                odd.substring(odd.indexOf(" is the ") + 1), "a foreign face's words are not repeated: " + odd);
        assertEquals(true, fenced.startsWith(where));
        assertNull(check("{\"ok\":true,\"issuer\":\"urn:cotal:auth:alpha\",\"plane\":{\"state\":\"open\"},\"connections\":["
                + "{\"role\":\"auth-mint\"}],\"stores\":[]}"), "a serving service passes");
    }
}
