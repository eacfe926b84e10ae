package ai.cotal.auth.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Micrometer is optional on the module path too (SPEC §13.21): a program with a
 * {@code module-info.java} requiring {@code ai.cotal.auth} ({@code src/test/module-path}) compiles
 * against the built module and the jars Maven gives an embedder ({@code target/runtime.classpath})
 * with every Micrometer jar left out, and runs on that module path: it opens a plane on a real
 * broker, reporting to a {@link MeterSink} of its own, and closes it.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class ModulePathWithoutMicrometerBrokerTest {
    @TempDir
    Path dir;

    /** The module path of an embedder without Micrometer: the built module and its runtime jars minus Micrometer's. */
    private static List<String> modulePath() throws Exception {
        List<String> entries = new ArrayList<>(List.of(Path.of("target", "classes").toAbsolutePath().toString()));
        List<String> runtime = List.of(Files.readString(Path.of("target", "runtime.classpath"), StandardCharsets.UTF_8)
                .strip().split(File.pathSeparator));
        String micrometer = File.separator + "io" + File.separator + "micrometer" + File.separator;
        assertTrue(runtime.stream().anyMatch(e -> e.contains(micrometer)), "the optional dependency is there to leave out");
        runtime.stream().filter(e -> !e.contains(micrometer)).forEach(entries::add);
        return entries;
    }

    /** A tool of the JDK running the test. */
    private static String tool(String name) {
        return Path.of(System.getProperty("java.home"), "bin", name).toString();
    }

    private static List<String> sources(Path root) throws Exception {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> p.toString().endsWith(".java")).map(Path::toString).sorted().toList();
        }
    }

    @Test
    void aModulePathProgramWithoutMicrometerCompilesOpensAPlaneAndReportsToItsOwnSink(NatsBrokers brokers)
            throws Exception {
        List<String> modulePath = modulePath();
        String path = String.join(File.pathSeparator, modulePath);
        Path classes = dir.resolve("classes");
        List<String> javac = new ArrayList<>(List.of(tool("javac"), "--module-path", path, "-d", classes.toString(),
                "-Xlint:all", "-Werror"));
        javac.addAll(sources(Path.of("src", "test", "module-path", "cotal.embedder")));
        Path diagnostics = dir.resolve("javac.log");
        Process compile = new ProcessBuilder(javac).redirectErrorStream(true).redirectOutput(diagnostics.toFile()).start();
        try {
            assertTrue(compile.waitFor(120, TimeUnit.SECONDS), "javac ends");
        } finally {
            compile.destroyForcibly();
        }
        assertEquals(0, compile.exitValue(), () -> read(diagnostics));

        Path log = dir.resolve("run.log");
        Process run = new ProcessBuilder(tool("java"), "--module-path", classes + File.pathSeparator + path, "-m", "cotal.embedder/embedder.Main", dir.toString())
                .redirectError(log.toFile()).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(run.getInputStream(), StandardCharsets.UTF_8));
                PrintStream in = new PrintStream(run.getOutputStream(), true, StandardCharsets.UTF_8)) {
            NatsBroker nats = brokers.start(b -> {
                in.println(b.storeDir());
                String line = line(out);
                assertTrue(line.startsWith("config "), () -> line + "\n" + read(log));
                return read(Path.of(line.substring("config ".length())));
            });
            in.println(nats.url());
            String last = line(out);
            assertEquals("ok", last, () -> read(log));
            assertTrue(run.waitFor(60, TimeUnit.SECONDS), "the program ends");
            assertEquals(0, run.exitValue(), () -> read(log));
        } finally {
            run.destroyForcibly();
        }
        String errors = read(log);
        assertFalse(errors.contains("NoClassDefFoundError") || errors.contains("micrometer"), errors);
    }

    /** The program's next line on stdout, waited for at most 90 s. */
    private static String line(BufferedReader out) {
        CompletableFuture<String> next = CompletableFuture.supplyAsync(() -> {
            try {
                return out.readLine();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        try {
            String line = next.get(90, TimeUnit.SECONDS);
            return line == null ? "(the program ended)" : line;
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            throw new AssertionError("no line from the program", e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8).stream()
                    .collect(Collectors.joining("\n")) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
