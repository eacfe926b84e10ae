package ai.cotal.cli;

import ai.cotal.servicehost.HostJson;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The loopback face of a running stock service, as its state directory names it:
 * {@code auth-service.json} (0600) holds the face's URL and the capability its operator routes
 * demand. The service writes the file once ready and removes it when it stops or its plane fences,
 * so a missing file means the service is not running. A file can outlive its service: check the
 * face with {@link ServiceCheck} before sending it the capability.
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

    @Override
    public String toString() {
        return "LoopbackFace[" + url + "]"; // never the capability
    }
}
