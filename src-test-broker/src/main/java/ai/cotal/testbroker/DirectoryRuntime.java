package ai.cotal.testbroker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.stream.Stream;

/** What both backends keep the same way: a private work directory, its config file, store directory and log. */
abstract class DirectoryRuntime implements BrokerRuntime {
    protected final Path workDir;
    protected final Path configFile;
    protected final Path storeDir;
    protected final BrokerLog log = new BrokerLog();

    DirectoryRuntime() {
        try {
            this.workDir = Files.createTempDirectory("cotal-broker-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.configFile = workDir.resolve("nats.conf");
        this.storeDir = workDir.resolve("jetstream");
    }

    /** Replaces the config file atomically, so a reload never reads half of it. */
    protected void writeConfig(String config) {
        try {
            Path tmp = workDir.resolve("nats.conf.tmp");
            Files.writeString(tmp, config, StandardCharsets.UTF_8);
            Files.move(tmp, configFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Best effort: a temp directory left behind is not a test failure. */
    protected void deleteWorkDir() {
        try (Stream<Path> files = Files.walk(workDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException ignored) {
            // Nothing to report: see above.
        }
    }

    @Override
    public Path workDir() {
        return workDir;
    }

    @Override
    public Path storeDir() {
        return storeDir;
    }

    @Override
    public BrokerLog log() {
        return log;
    }
}
