package ai.cotal.workspace;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A nats-server child process run with a config the library rendered ({@code ServerConfig.render}):
 * {@link #start} writes the config privately (0600 in a 0700 directory), starts the binary and
 * returns once the server itself reports it is ready ({@code Server is ready} in its log, with the
 * client port it listens on); {@link #close()} stops it and waits for it to exit. Render the config
 * with port {@code -1} to let the server choose a free port; {@link #url()} names the one it took.
 *
 * <pre>{@code
 * try (NatsServer nats = NatsServer.start(NatsServer.find(), config, dir)) {
 *     Nats.connect(nats.url()) ...
 * }
 * }</pre>
 *
 * <p>Thread-safe. The server's output is kept (its last 40 lines) and logged when a start fails
 * (the library's configs hold no secret, only public keys and JWTs; the log names paths, so the
 * exception does not carry it).
 */
public final class NatsServer implements AutoCloseable {
    /** The system property that names the binary {@link #find()} answers first. */
    public static final String BINARY_PROPERTY = "cotal.nats.server";
    /** The environment variable {@link #find()} reads next. */
    public static final String BINARY_VARIABLE = "COTAL_NATS_SERVER";
    private static final Pattern LISTENING = Pattern.compile("Listening for client connections on (\\S+):(\\d+)");
    private static final int TAIL = 40;
    private static final long READY_SECONDS = 30;
    private static final Logger LOG = LoggerFactory.getLogger(NatsServer.class);

    private final Process process;
    private final String url;

    private NatsServer(Process process, String url) {
        this.process = process;
        this.url = url;
    }

    /**
     * Writes {@code config} to {@code dir/nats-server.conf} and runs {@code binary} with it until
     * the server reports it is ready.
     *
     * @param binary the nats-server executable ({@link #find()} finds one)
     * @param config the server config, as {@code ServerConfig.render} wrote it
     * @param dir    an absolute directory for the config file, created 0700 when missing
     * @throws CotalException {@code bad-request} naming {@code binary}, {@code config} or {@code dir};
     *         {@code unavailable} when the server exits or is not ready within 30 s (its log's tail is
     *         logged at warn, not put in the message: it names the config's paths)
     */
    public static NatsServer start(Path binary, String config, Path dir) {
        if (binary == null || !Files.isExecutable(binary)) {
            throw CotalException.badRequest("binary", "must be an executable nats-server");
        }
        if (config == null || config.isBlank()) {
            throw CotalException.badRequest("config", "is required");
        }
        if (dir == null || !dir.isAbsolute()) {
            throw CotalException.badRequest("dir", "must be an absolute path");
        }
        PrivateFiles.ensureDirectory(dir, dir);
        Path file = dir.resolve("nats-server.conf");
        PrivateFiles.write(file, config.getBytes(StandardCharsets.UTF_8));
        Process process;
        try {
            process = new ProcessBuilder(binary.toString(), "-c", file.toString()).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "nats-server could not be started: " + e.getMessage(), e);
        }
        Deque<String> tail = new ArrayDeque<>();
        CompletableFuture<String> ready = new CompletableFuture<>();
        Thread reader = new Thread(() -> read(process, tail, ready), "nats-server-log-" + process.pid());
        reader.setDaemon(true);
        reader.start();
        try {
            return new NatsServer(process, ready.get(READY_SECONDS, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new CotalException(ErrorCode.UNAVAILABLE, "interrupted while nats-server started", e);
        } catch (ExecutionException | TimeoutException e) {
            process.destroyForcibly();
            String log;
            synchronized (tail) {
                log = String.join("\n", tail);
            }
            String why = e instanceof TimeoutException ? " within " + READY_SECONDS + " s" : " (it exited)";
            LOG.warn("nats-server did not become ready{}; its log's tail:\n{}", why, log); // paths stay in the log
            throw new CotalException(ErrorCode.UNAVAILABLE, "nats-server did not become ready" + why
                    + "; its log's tail is in this process's log", e);
        }
    }

    /** Reads the server's output: the port it listens on, then its readiness; keeps the tail. */
    private static void read(Process process, Deque<String> tail, CompletableFuture<String> ready) {
        String listening = null;
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                synchronized (tail) {
                    tail.addLast(line);
                    if (tail.size() > TAIL) {
                        tail.removeFirst();
                    }
                }
                Matcher m = LISTENING.matcher(line);
                if (m.find()) {
                    String host = m.group(1).equals("0.0.0.0") || m.group(1).equals("[::]") ? "127.0.0.1" : m.group(1);
                    listening = "nats://" + host + ":" + m.group(2);
                }
                if (line.contains("Server is ready") && listening != null) {
                    ready.complete(listening);
                }
            }
        } catch (IOException e) {
            ready.completeExceptionally(e);
        }
        ready.completeExceptionally(new IOException("nats-server exited"));
    }

    /**
     * The nats-server binary to run: the system property {@value #BINARY_PROPERTY}, else the
     * environment variable {@value #BINARY_VARIABLE}, else {@code nats-server} on {@code PATH},
     * else {@code .broker/bin/nats-server} in the working directory or a parent (where the Cotal
     * tree's {@code scripts/install-nats-server} puts it).
     *
     * @throws CotalException {@code failed-precondition} naming every place it looked
     */
    public static Path find() {
        for (String named : new String[] {System.getProperty(BINARY_PROPERTY), System.getenv(BINARY_VARIABLE)}) {
            if (named != null && !named.isBlank()) {
                return Path.of(named);
            }
        }
        String path = System.getenv("PATH");
        if (path != null) {
            for (String entry : path.split(java.io.File.pathSeparator)) {
                if (!entry.isEmpty() && Files.isExecutable(Path.of(entry, "nats-server"))) {
                    return Path.of(entry, "nats-server");
                }
            }
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path local = dir.resolve(".broker").resolve("bin").resolve("nats-server");
            if (Files.isExecutable(local)) {
                return local;
            }
        }
        throw new CotalException(ErrorCode.FAILED_PRECONDITION, "no nats-server found: looked at -D" + BINARY_PROPERTY
                + ", $" + BINARY_VARIABLE + ", PATH and .broker/bin/nats-server in the working directory and its parents;"
                + " install nats-server >= 2.12 (https://github.com/nats-io/nats-server/releases) or name it with -D"
                + BINARY_PROPERTY + "=/path/to/nats-server");
    }

    /** The URL clients connect to, as the server reported it. */
    public String url() {
        return url;
    }

    /** Whether the server process still runs. */
    public boolean running() {
        return process.isAlive();
    }

    /** Stops the server (SIGTERM, then SIGKILL after 10 s) and waits for it to exit. Idempotent. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    @Override
    public String toString() {
        return "NatsServer[" + url + ", pid " + process.pid() + "]";
    }
}
