package ai.cotal.testbroker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BackendChoiceTest {
    @TempDir
    Path dir;

    private Path executable(Path path) throws Exception {
        Files.createDirectories(path.getParent());
        Files.writeString(path, "#!/bin/sh\n");
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwx------"));
        return path;
    }

    @Test
    void explicitBinaryWinsWithoutAskingDocker() throws Exception {
        AtomicBoolean asked = new AtomicBoolean();
        BackendChoice choice = BackendChoice.choose(Map.of("COTAL_NATS_SERVER", "/opt/nats/nats-server"), dir,
                () -> { asked.set(true); return true; });
        assertEquals(BackendChoice.Kind.LOCAL, choice.kind());
        assertEquals(Path.of("/opt/nats/nats-server"), choice.binary());
        assertFalse(asked.get());
    }

    @Test
    void dockerEngineSelectsTheContainerImage() {
        BackendChoice choice = BackendChoice.choose(Map.of(), dir, () -> true);
        assertEquals(BackendChoice.Kind.CONTAINER, choice.kind());
        assertEquals(BackendChoice.DEFAULT_IMAGE, choice.image());
        assertEquals("nats:custom", BackendChoice.choose(Map.of("COTAL_NATS_IMAGE", "nats:custom"), dir, () -> true).image());
    }

    @Test
    void withoutDockerTheProjectCacheAboveTheWorkingDirectoryIsUsed() throws Exception {
        Path cached = executable(dir.resolve(".broker/bin/nats-server"));
        Path module = Files.createDirectories(dir.resolve("core/target"));
        BackendChoice choice = BackendChoice.choose(Map.of("PATH", ""), module, () -> false);
        assertEquals(BackendChoice.Kind.LOCAL, choice.kind());
        assertEquals(cached, choice.binary());
    }

    @Test
    void withoutCacheThePathIsSearched() throws Exception {
        Path onPath = executable(dir.resolve("bin/nats-server"));
        BackendChoice choice = BackendChoice.choose(Map.of("PATH", "/nonexistent:" + onPath.getParent()),
                Files.createDirectories(dir.resolve("work")), () -> false);
        assertEquals(onPath, choice.binary());
    }

    @Test
    void forcedLocalSkipsTheDockerProbe() throws Exception {
        executable(dir.resolve(".broker/bin/nats-server"));
        AtomicBoolean asked = new AtomicBoolean();
        BackendChoice choice = BackendChoice.choose(Map.of("COTAL_BROKER_BACKEND", "local"), dir,
                () -> { asked.set(true); return true; });
        assertEquals(BackendChoice.Kind.LOCAL, choice.kind());
        assertFalse(asked.get());
    }

    @Test
    void forcedContainerNeedsNoProbe() {
        assertEquals(BackendChoice.Kind.CONTAINER,
                BackendChoice.choose(Map.of("COTAL_BROKER_BACKEND", "container"), dir, () -> false).kind());
    }

    @Test
    void unknownBackendNameIsRefused() {
        BrokerException e = assertThrows(BrokerException.class,
                () -> BackendChoice.choose(Map.of("COTAL_BROKER_BACKEND", "podman"), dir, () -> false));
        assertTrue(e.getMessage().contains("podman"));
    }

    @Test
    void nothingFoundNamesTheInstallCommand() {
        BrokerException e = assertThrows(BrokerException.class,
                () -> BackendChoice.choose(Map.of("PATH", ""), dir, () -> false));
        assertTrue(e.getMessage().contains(ServerVersion.INSTALL_HINT), e.getMessage());
    }

    @Test
    void versionsParseAndCompare() {
        assertEquals(new ServerVersion(2, 15, 1), ServerVersion.parse("nats-server: v2.15.1"));
        assertTrue(ServerVersion.parse("2.12.0").atLeast(ServerVersion.MINIMUM));
        assertFalse(ServerVersion.parse("v2.9.10").atLeast(ServerVersion.MINIMUM));
        assertFalse(ServerVersion.parse("v2.11.99").atLeast(ServerVersion.MINIMUM));
        assertTrue(ServerVersion.parse("v3.0.0").atLeast(ServerVersion.MINIMUM));
        assertThrows(BrokerException.class, () -> ServerVersion.parse("garbage"));
    }
}
