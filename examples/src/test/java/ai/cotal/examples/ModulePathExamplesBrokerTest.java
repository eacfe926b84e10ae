package ai.cotal.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.workspace.NatsServer;
import java.io.File;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The examples are a named module ({@code ai.cotal.examples}, compiled by the build on the module
 * path) and run there: {@code java --module-path <the examples and their runtime jars> -m
 * ai.cotal.examples/ai.cotal.examples.FirstProgram}, with no Micrometer on that path, against a
 * real nats-server.
 */
@Tag("broker")
class ModulePathExamplesBrokerTest {
    @TempDir
    Path dir;

    @Test
    void theFirstProgramRunsAsANamedModuleWithoutMicrometer() throws Exception {
        List<String> path = new ArrayList<>(List.of(Path.of("target", "classes").toAbsolutePath().toString()));
        path.addAll(List.of(Files.readString(Path.of("target", "runtime.classpath"), StandardCharsets.UTF_8).strip()
                .split(File.pathSeparator)));
        assertFalse(path.stream().anyMatch(e -> e.contains(File.separator + "micrometer")), path.toString());
        ModuleDescriptor examples = ModuleFinder.of(Path.of("target", "classes")).find("ai.cotal.examples").orElseThrow()
                .descriptor();
        assertFalse(examples.isAutomatic(), "a module-info.java, not a jar name");
        Path log = dir.resolve("run.log");
        Process run = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--module-path", String.join(File.pathSeparator, path), "-m",
                "ai.cotal.examples/ai.cotal.examples.FirstProgram", NatsServer.find().toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            assertTrue(run.waitFor(120, TimeUnit.SECONDS), "the program ends");
        } finally {
            run.destroyForcibly();
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertEquals(0, run.exitValue(), output);
        assertTrue(output.contains("connected; the broker refused: ") && output.contains("Permissions Violation for Publish")
                && output.contains("revoked; the broker refused the connect: "), output);
        assertFalse(output.contains("NoClassDefFoundError") || output.contains("micrometer"), output);
    }
}
