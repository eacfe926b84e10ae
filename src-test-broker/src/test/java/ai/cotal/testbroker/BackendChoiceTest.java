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
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The lookup order of {@link BackendChoice}, over fake nats-server scripts in a temp directory. */
class BackendChoiceTest {
    private static final Map<String, String> NO_PROPERTIES = Map.of();
    private static final BooleanSupplier NO_DOCKER = () -> false;

    @TempDir
    Path dir;

    /** A fake nats-server that reports {@code version} to {@code --version}. */
    private Path fake(String relative, String version) throws Exception {
        Path path = dir.resolve(relative);
        Files.createDirectories(path.getParent());
        Files.writeString(path, "#!/bin/sh\necho 'nats-server: v" + version + "'\n");
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwx------"));
        return path;
    }

    private Path work() throws Exception {
        return Files.createDirectories(dir.resolve("project/core"));
    }

    private static BooleanSupplier mustNotAsk(AtomicBoolean asked) {
        return () -> { asked.set(true); return true; };
    }

    @Test
    void thePropertyWinsOverTheVariableAndNothingElseIsAsked() throws Exception {
        fake("bin/nats-server", "2.12.1");
        AtomicBoolean asked = new AtomicBoolean();
        BackendChoice choice = BackendChoice.choose(Map.of(BackendChoice.BINARY_PROPERTY, "/opt/a/nats-server"),
                Map.of(BackendChoice.BINARY_VARIABLE, "/opt/b/nats-server", "PATH", dir.resolve("bin").toString()),
                work(), mustNotAsk(asked));
        assertEquals(new BackendChoice(BackendChoice.Kind.LOCAL, Path.of("/opt/a/nats-server"), null), choice);
        assertFalse(asked.get(), "an explicit binary needs no Docker probe");
    }

    @Test
    void theVariableNamesTheBinaryWhenNoPropertyIsSet() throws Exception {
        fake("bin/nats-server", "2.12.1");
        BackendChoice choice = BackendChoice.choose(NO_PROPERTIES, Map.of(BackendChoice.BINARY_VARIABLE,
                "/opt/b/nats-server", "PATH", dir.resolve("bin").toString()), work(), NO_DOCKER);
        assertEquals(Path.of("/opt/b/nats-server"), choice.binary());
    }

    @Test
    void pathComesBeforeTheProjectCacheAndDocker() throws Exception {
        Path onPath = fake("bin/nats-server", "2.14.0");
        fake("project/.broker/bin/nats-server", "2.12.0");
        AtomicBoolean asked = new AtomicBoolean();
        BackendChoice choice = BackendChoice.choose(NO_PROPERTIES,
                Map.of("PATH", dir.resolve("empty") + ":" + onPath.getParent()), work(), mustNotAsk(asked));
        assertEquals(new BackendChoice(BackendChoice.Kind.LOCAL, onPath, null), choice);
        assertFalse(asked.get());
    }

    @Test
    void theProjectCacheAboveTheWorkingDirectoryServesWhenPathHasNone() throws Exception {
        Path cached = fake("project/.broker/bin/nats-server", "2.12.0");
        AtomicBoolean asked = new AtomicBoolean();
        BackendChoice choice = BackendChoice.choose(NO_PROPERTIES, Map.of("PATH", dir.resolve("empty").toString()),
                work(), mustNotAsk(asked));
        assertEquals(cached, choice.binary());
        assertFalse(asked.get(), "a found binary needs no Docker probe");
    }

    @Test
    void aTooOldBinaryOnPathIsPassedOverForTheCache() throws Exception {
        Path old = fake("bin/nats-server", "2.9.25");
        Path cached = fake("project/.broker/bin/nats-server", "2.12.3");
        BackendChoice choice = BackendChoice.choose(NO_PROPERTIES, Map.of("PATH", old.getParent().toString()),
                work(), NO_DOCKER);
        assertEquals(cached, choice.binary());
    }

    @Test
    void aDockerEngineServesOnlyWhenNoBinaryIsFound() throws Exception {
        BackendChoice choice = BackendChoice.choose(NO_PROPERTIES, Map.of("PATH", ""), work(), () -> true);
        assertEquals(new BackendChoice(BackendChoice.Kind.CONTAINER, null, BackendChoice.DEFAULT_IMAGE), choice);
        assertEquals("nats:custom", BackendChoice.choose(NO_PROPERTIES,
                Map.of("PATH", "", BackendChoice.IMAGE_VARIABLE, "nats:custom"), work(), () -> true).image());
    }

    @Test
    void forcedLocalNeverAsksDocker() throws Exception {
        AtomicBoolean asked = new AtomicBoolean();
        BrokerException e = assertThrows(BrokerException.class, () -> BackendChoice.choose(
                Map.of(BackendChoice.BACKEND_PROPERTY, "local"), Map.of("PATH", ""), work(), mustNotAsk(asked)));
        assertFalse(asked.get());
        assertTrue(e.getMessage().contains("no Docker engine (COTAL_BROKER_BACKEND=local)"), e.getMessage());
    }

    @Test
    void forcedContainerNeedsNoProbe() throws Exception {
        fake("bin/nats-server", "2.12.1");
        assertEquals(BackendChoice.Kind.CONTAINER, BackendChoice.choose(NO_PROPERTIES, Map.of(BackendChoice.BACKEND_VARIABLE,
                "container", "PATH", dir.resolve("bin").toString()), work(), NO_DOCKER).kind());
    }

    @Test
    void anUnknownBackendNameIsRefused() {
        BrokerException e = assertThrows(BrokerException.class, () -> BackendChoice.choose(NO_PROPERTIES,
                Map.of(BackendChoice.BACKEND_VARIABLE, "podman"), dir, NO_DOCKER));
        assertTrue(e.getMessage().contains("'podman'"), e.getMessage());
    }

    @Test
    void nothingFoundListsEveryPlaceLookedAtAndHowToInstall() throws Exception {
        Path old = fake("bin/nats-server", "2.10.0");
        Path work = work();
        BrokerException e = assertThrows(BrokerException.class, () -> BackendChoice.choose(NO_PROPERTIES,
                Map.of("PATH", dir.resolve("empty") + ":" + old.getParent() + ":" + dir.resolve("empty")), work, NO_DOCKER));
        String message = e.getMessage();
        assertEquals(message.indexOf(dir.resolve("empty/nats-server").toString()),
                message.lastIndexOf(dir.resolve("empty/nats-server").toString()), "a PATH entry twice is listed once");
        for (String place : new String[] {"-Dcotal.nats.server and COTAL_NATS_SERVER (both unset)",
                dir.resolve("empty/nats-server") + " (absent)",
                old + " (version 2.10.0, older than 2.12.0)",
                work.resolve(".broker/bin/nats-server") + " (absent)",
                dir.resolve("project/.broker/bin/nats-server") + " (absent)",
                "a Docker engine (none answers)",
                ServerVersion.INSTALL_HINT, "go install github.com/nats-io/nats-server/v2@latest"}) {
            assertTrue(message.contains(place), "missing '" + place + "' in: " + message);
        }
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
