package ai.cotal.auth.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Micrometer is an optional dependency (SPEC §13.21): without a registry nothing of it is loaded,
 * so a stock service runs in a JVM whose class path does not hold it at all ({@link NoMicrometerMain}
 * starts a nats-server of its own and drives the service).
 */
@Tag("broker")
class NoMicrometerBrokerTest {
    @TempDir
    Path dir;

    @Test
    void aServiceWithoutARegistryRunsWithoutMicrometerOnTheClassPath() throws Exception {
        List<String> entries = Arrays.asList(System.getProperty("java.class.path").split(File.pathSeparator));
        assertTrue(entries.stream().anyMatch(e -> e.contains("micrometer-core")), "the test's own class path has it: "
                + entries.size() + " entries");
        String without = entries.stream().filter(e -> !e.contains(File.separator + "io" + File.separator + "micrometer"
                + File.separator)).collect(Collectors.joining(File.pathSeparator));
        assertFalse(without.contains("micrometer-core"));
        Process run = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", without,
                NoMicrometerMain.class.getName()).redirectErrorStream(true).redirectOutput(dir.resolve("run.log").toFile())
                .start();
        try {
            assertTrue(run.waitFor(120, TimeUnit.SECONDS), "the run ends");
        } finally {
            run.destroyForcibly();
        }
        String output = Files.readString(dir.resolve("run.log"), StandardCharsets.UTF_8);
        assertEquals(0, run.exitValue(), output);
        assertTrue(output.strip().endsWith("ok"), output);
        assertFalse(output.contains("NoClassDefFoundError"), output);
    }
}
