package ai.cotal.testbroker;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DockerProbeTest {
    @TempDir
    Path root;

    private Path home() throws Exception {
        return Files.createDirectories(root.resolve("home/dev"));
    }

    private static Properties linux() {
        Properties system = new Properties();
        system.setProperty("os.name", "Linux");
        return system;
    }

    private Path touch(Path file) throws Exception {
        Files.createDirectories(file.getParent());
        return Files.writeString(file, "");
    }

    @Test
    void nothingDockerShapedMeansTestcontainersIsNotAsked() throws Exception {
        assertFalse(DockerProbe.endpointVisible(Map.of("PATH", "/usr/bin", "XDG_RUNTIME_DIR", root.resolve("run/user/1000").toString()),
                linux(), root, home(), 1000L));
    }

    @Test
    void aDockerSettingDefersToTestcontainers() throws Exception {
        Path home = home();
        assertTrue(DockerProbe.endpointVisible(Map.of("DOCKER_HOST", "tcp://127.0.0.1:2375"), linux(), root, home, null));
        assertTrue(DockerProbe.endpointVisible(Map.of("TESTCONTAINERS_DOCKER_CLIENT_STRATEGY", "x"), linux(), root, home, null));
        Properties property = linux();
        property.setProperty("docker.host", "unix:///tmp/docker.sock");
        assertTrue(DockerProbe.endpointVisible(Map.of(), property, root, home, null));
        touch(home.resolve(".testcontainers.properties"));
        assertTrue(DockerProbe.endpointVisible(Map.of(), linux(), root, home, null));
    }

    @Test
    void eachSocketTheStrategiesLookAtCounts() throws Exception {
        Path home = home();
        Path system = touch(root.resolve("var/run/docker.sock"));
        assertTrue(DockerProbe.endpointVisible(Map.of(), linux(), root, home, null));
        Files.delete(system);
        Path rootless = touch(root.resolve("run/user/1000/docker.sock"));
        assertTrue(DockerProbe.endpointVisible(Map.of(), linux(), root, home, 1000L));
        assertFalse(DockerProbe.endpointVisible(Map.of(), linux(), root, home, 1001L));
        assertTrue(DockerProbe.endpointVisible(Map.of("XDG_RUNTIME_DIR", rootless.getParent().toString()), linux(), root, home,
                null));
        Files.delete(rootless);
        touch(home.resolve(".docker/desktop/docker.sock"));
        assertTrue(DockerProbe.endpointVisible(Map.of(), linux(), root, home, null));
    }

    @Test
    void windowsNamedPipesAreLeftToTestcontainers() throws Exception {
        Properties windows = new Properties();
        windows.setProperty("os.name", "Windows 11");
        assertTrue(DockerProbe.endpointVisible(Map.of(), windows, root, home(), null));
    }
}
