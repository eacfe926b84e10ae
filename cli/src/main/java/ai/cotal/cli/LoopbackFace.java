package ai.cotal.cli;

import ai.cotal.servicehost.HostJson;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The loopback face of a running stock service, as its state directory names it:
 * {@code auth-service.json} (0600) holds the face's URL and the capability its operator routes
 * demand. The service writes the file once ready and removes it when it stops or its plane fences,
 * so a missing file means the service is not running. A file can outlive its service: check the
 * face with {@link ServiceCheck} before sending it the capability; {@link #post} does both, and is
 * the one client of the operator's loopback routes ({@code lifecycle retire}, {@code actor}).
 */
record LoopbackFace(URI url, String capability) {
    static final String FILE = "auth-service.json";
    static final String NOT_RUNNING = "no " + FILE + " in the state directory: the service is not running (it removes"
            + " the file when it stops)";

    /** The face {@code stateDir} names; empty when it holds no {@code auth-service.json}. */
    static Optional<LoopbackFace> read(Path stateDir) throws IOException {
        Path file = stateDir.resolve(FILE);
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        JsonNode discovery = HostJson.tree(Files.readAllBytes(file), FILE);
        return Optional.of(new LoopbackFace(URI.create(discovery.path("url").asText()),
                discovery.path("capability").asText()));
    }

    /** Why nothing was sent: no service runs in the state directory, or the face is not the space's. */
    static final class NothingSent extends Exception {
        private static final long serialVersionUID = 1L;

        NothingSent(String message) {
            super(message);
        }
    }

    /** A route's answer: its status and body. */
    record Answer(int status, byte[] body) {
    }

    /**
     * Sends {@code body} as JSON to the loopback route {@code route} of the service of {@code space}
     * that {@code stateDir} names, with the capability, once the face proved it is that service
     * ({@link ServiceCheck}); answers what the route answered, within {@code timeout}.
     *
     * @throws NothingSent when no service runs there, or the face is not the space's service
     */
    static Answer post(String space, Path stateDir, String route, Object body, Duration timeout)
            throws NothingSent, IOException, InterruptedException {
        Optional<LoopbackFace> face = read(stateDir);
        if (face.isEmpty()) {
            throw new NothingSent(NOT_RUNNING);
        }
        HttpClient http = HttpClient.newHttpClient();
        String refusal = ServiceCheck.refusal(http, face.get().url(), space, face.get().capability());
        if (refusal != null) { // a stale file or a squatter on the port: it gets no capability
            throw new NothingSent(refusal + "; nothing was sent");
        }
        HttpResponse<byte[]> answer = http.send(HttpRequest.newBuilder(face.get().url().resolve(route))
                .timeout(timeout).header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + face.get().capability())
                .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body))).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        return new Answer(answer.statusCode(), answer.body());
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public String toString() {
        return "LoopbackFace[" + url + "]"; // never the capability
    }
}
