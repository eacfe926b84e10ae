package ai.cotal.testbroker;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** Runs a local nats-server binary as a child process. */
final class LocalBrokerRuntime extends DirectoryRuntime {
    static final String HOST = "127.0.0.1";
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
    private static final Pattern LISTENING =
            Pattern.compile("Listening for client connections on [^\\s]*:(\\d+)");
    /** Appended when the server's output ends, so that waits for a line end with the process. */
    static final String EXITED = "[cotal-test-broker] nats-server output ended";
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly),
                "cotal-test-broker-reaper"));
    }

    private final Path binary;
    private Process process;
    private Thread pump;
    private int port = -1;
    private int monitorPort = -1;

    LocalBrokerRuntime(Path binary) {
        this.binary = binary;
        checkVersion(binary);
    }

    /** Runs {@code binary --version} and refuses anything older than {@link ServerVersion#MINIMUM}. */
    static ServerVersion checkVersion(Path binary) {
        if (!Files.isExecutable(binary)) {
            throw new BrokerException("nats-server " + binary + " is not an executable file: run "
                    + ServerVersion.INSTALL_HINT + " or fix -D" + BackendChoice.BINARY_PROPERTY
                    + " / " + BackendChoice.BINARY_VARIABLE);
        }
        ServerVersion version = version(binary);
        if (!version.atLeast(ServerVersion.MINIMUM)) {
            throw new BrokerException("nats-server " + binary + " is " + version + "; the tests need >= "
                    + ServerVersion.MINIMUM + ": run " + ServerVersion.INSTALL_HINT + " (or point -D"
                    + BackendChoice.BINARY_PROPERTY + " / " + BackendChoice.BINARY_VARIABLE + " at a newer binary)");
        }
        return version;
    }

    /** The version {@code binary --version} reports. */
    static ServerVersion version(Path binary) {
        String output;
        try {
            Process p = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
            output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new BrokerException(binary + " --version did not finish");
            }
        } catch (IOException e) {
            throw new BrokerException("cannot run " + binary + " --version: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BrokerException("interrupted while checking " + binary);
        }
        return ServerVersion.parse(output);
    }

    @Override
    public void start(String config) {
        writeConfig(config);
        launch("-1");
    }

    @Override
    public void startAt(String config, int clientPort, int monitor) {
        port = clientPort;
        monitorPort = monitor;
        writeConfig(config);
        launch(Integer.toString(clientPort));
    }

    @Override
    public int monitorPort() {
        return monitorPort;
    }

    private void launch(String portArg) {
        List<String> command = new ArrayList<>(List.of(binary.toString(), "-c", configFile.toString(),
                "-a", HOST, "-p", portArg));
        if (monitorPort > 0) {
            command.addAll(List.of("-m", Integer.toString(monitorPort)));
        }
        long mark = log.mark();
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new BrokerException("cannot start " + binary + ": " + e.getMessage(), e);
        }
        LIVE.add(process);
        pump = startPump(process.getInputStream());
        Optional<String> ready = log.await(mark, line -> line.contains("Server is ready")
                || line.contains("[FTL]") || line.equals(EXITED), READY_TIMEOUT);
        if (ready.isEmpty() || !ready.get().contains("Server is ready") || !process.isAlive()) {
            String tail = String.join("\n", log.tail(40));
            kill();
            throw new BrokerException("nats-server did not become ready; log tail:\n" + tail);
        }
        if (port < 0) {
            port = log.await(mark, line -> LISTENING.matcher(line).find(), Duration.ZERO)
                    .map(line -> { Matcher m = LISTENING.matcher(line); m.find(); return Integer.parseInt(m.group(1)); })
                    .orElseThrow(() -> new BrokerException("nats-server did not log its client port"));
        }
    }

    private Thread startPump(InputStream output) {
        Thread thread = new Thread(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(output, StandardCharsets.UTF_8));
                 Writer file = Files.newBufferedWriter(workDir.resolve("nats.log"), StandardCharsets.UTF_8,
                         StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
                String line;
                while ((line = reader.readLine()) != null) {
                    log.append(line);
                    file.write(line);
                    file.write('\n');
                    file.flush();
                }
            } catch (IOException ignored) {
                // The process is gone; its output ends here.
            }
            log.append(EXITED);
        }, "cotal-test-broker-log");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    @Override
    public String host() {
        return HOST;
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public boolean running() {
        return process != null && process.isAlive();
    }

    @Override
    public void stop() {
        if (running()) {
            process.destroy();
            awaitExit(Duration.ofSeconds(30));
        }
    }

    @Override
    public void kill() {
        if (process != null) {
            process.destroyForcibly();
            awaitExit(Duration.ofSeconds(10));
        }
    }

    private void awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
            pump.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LIVE.remove(process);
    }

    @Override
    public void restart() {
        if (running()) {
            throw new BrokerException("restart() needs a stopped broker: call stop() or kill() first");
        }
        launch(Integer.toString(port));
    }

    @Override
    public void reload(String config) {
        if (!running()) {
            throw new BrokerException("reload() needs a running broker");
        }
        writeConfig(config);
        long mark = log.mark();
        try {
            Process signal = new ProcessBuilder("kill", "-HUP", Long.toString(process.pid())).start();
            if (signal.waitFor(10, TimeUnit.SECONDS) && signal.exitValue() != 0) {
                throw new BrokerException("kill -HUP " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new BrokerException("cannot send SIGHUP: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BrokerException("interrupted while reloading");
        }
        String outcome = log.await(mark, line -> line.contains("Reloaded server configuration")
                        || line.contains("Failed to reload") || line.equals(EXITED), READY_TIMEOUT)
                .orElseThrow(() -> new BrokerException("nats-server did not report the reload"));
        if (!outcome.contains("Reloaded server configuration")) {
            throw new BrokerException("nats-server refused the new config: " + outcome);
        }
    }

    @Override
    public long residentKib() {
        if (!running()) {
            return -1;
        }
        try (Stream<String> status = Files.lines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
            return status.filter(line -> line.startsWith("VmRSS:"))
                    .map(line -> Long.parseLong(line.replaceAll("[^0-9]", "")))
                    .findFirst().orElse(-1L);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    @Override
    public void destroy() {
        stop();
        deleteWorkDir();
    }
}
