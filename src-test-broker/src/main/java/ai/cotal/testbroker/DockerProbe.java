package ai.cotal.testbroker;

import org.testcontainers.DockerClientFactory;

/** Asks Testcontainers, once per JVM, whether a Docker engine answers. */
final class DockerProbe {
    private static volatile Boolean available;

    private DockerProbe() {
    }

    static boolean dockerAvailable() {
        Boolean known = available;
        if (known == null) {
            boolean answer;
            try {
                answer = DockerClientFactory.instance().isDockerAvailable();
            } catch (RuntimeException | LinkageError e) {
                answer = false;
            }
            available = known = answer;
        }
        return known;
    }
}
