package ai.cotal.testbroker;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.testcontainers.DockerClientFactory;

/**
 * Asks, once per JVM, whether a Docker engine answers. Testcontainers is asked only when some
 * Docker endpoint is visible at all: its probe logs every failed strategy at ERROR, with causes,
 * through the caller's slf4j binding, which on a machine without Docker is noise in the output of
 * the command or benchmark that asked.
 */
final class DockerProbe {
    private static volatile Boolean available;

    private DockerProbe() {
    }

    static boolean dockerAvailable() {
        Boolean known = available;
        if (known == null) {
            boolean answer = false;
            if (endpointVisible(System.getenv(), System.getProperties(), Path.of("/"),
                    Path.of(System.getProperty("user.home", "/")), currentUid())) {
                try {
                    answer = DockerClientFactory.instance().isDockerAvailable();
                } catch (RuntimeException | LinkageError e) {
                    answer = false;
                }
            }
            available = known = answer;
        }
        return known;
    }

    /**
     * True when something that Testcontainers' strategies would try exists: a Docker setting
     * (environment, system property, a Testcontainers, docker-java or Docker CLI config file), a
     * Docker socket at one of the paths those strategies look at, or Windows (named pipes, not
     * checked here). False means every strategy would fail, so the probe is not run. {@code root}
     * is the file system root the socket paths hang from ({@code /} but in tests).
     */
    static boolean endpointVisible(Map<String, String> env, Properties system, Path root, Path home, Long uid) {
        if (system.getProperty("os.name", "").startsWith("Windows")) {
            return true;
        }
        for (String name : env.keySet()) {
            if (name.equals("DOCKER_HOST") || name.equals("DOCKER_CONTEXT") || name.startsWith("TESTCONTAINERS_")) {
                return true;
            }
        }
        if (system.getProperty("docker.host") != null || system.getProperty("tc.host") != null) {
            return true;
        }
        List<Path> candidates = new ArrayList<>(List.of(
                home.resolve(".testcontainers.properties"),
                home.resolve(".docker-java.properties"),
                home.resolve(".docker").resolve("config.json"),
                home.resolve(".docker").resolve("machine"),
                home.resolve(".docker").resolve("run").resolve("docker.sock"),
                home.resolve(".docker").resolve("desktop").resolve("docker.sock"),
                root.resolve("var/run/docker.sock")));
        String runtimeDir = env.get("XDG_RUNTIME_DIR");
        if (runtimeDir != null && !runtimeDir.isBlank()) {
            candidates.add(Path.of(runtimeDir, "docker.sock"));
        }
        if (uid != null) {
            candidates.add(root.resolve("run/user/" + uid + "/docker.sock"));
        }
        return candidates.stream().anyMatch(Files::exists);
    }

    private static Long currentUid() {
        try {
            return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
        } catch (Exception | LinkageError e) {
            return null;
        }
    }
}
