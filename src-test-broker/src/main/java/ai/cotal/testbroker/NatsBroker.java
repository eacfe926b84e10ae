package ai.cotal.testbroker;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real nats-server for one test: started from a config text on a free loopback port, with its
 * own store directory and work directory, and the four fault operations later tests need
 * ({@link #stop()}, {@link #kill()}, {@link #restart()}, {@link #reload(String)}).
 *
 * <p>The listen address is passed as command-line flags ({@code -a -p}), which take precedence
 * over the config: a config rendered for another port still runs here. The config names the
 * JetStream store directory: use {@link #storeDir()}, as {@link #defaultConfig(NatsBroker)} does.
 * Files a config names (resolver directory, certificates) belong under {@link #workDir()}, which
 * the server sees at the same path with either backend.
 *
 * <p>Not thread-safe: one test drives one broker. {@link #close()} stops the server and deletes
 * its directories.
 */
public final class NatsBroker implements AutoCloseable {
    /** The default config: JetStream in {@link #storeDir()}, no auth. */
    public static String defaultConfig(NatsBroker broker) {
        return "jetstream {\n  store_dir: \"" + broker.storeDir() + "\"\n}\n";
    }

    private static final Pattern SERVER_ID = Pattern.compile("\"server_id\"\\s*:\\s*\"([^\"]+)\"");
    private static final Pattern VERSION = Pattern.compile("\"version\"\\s*:\\s*\"([^\"]+)\"");

    private final BrokerRuntime runtime;
    private final BackendChoice.Kind backend;
    private String config;
    private String serverId;
    private ServerVersion version;

    private NatsBroker(BrokerRuntime runtime, BackendChoice.Kind backend, String config) {
        this.runtime = runtime;
        this.backend = backend;
        this.config = config;
    }

    /** Starts a broker with {@link #defaultConfig(NatsBroker)} on the detected backend. */
    public static NatsBroker start() {
        return start(BackendChoice.detect(), NatsBroker::defaultConfig);
    }

    /** Starts a broker with {@code config} on the backend {@link BackendChoice#detect()} picks. */
    public static NatsBroker start(String config) {
        return start(config, BackendChoice.detect());
    }

    /** Starts a broker with {@code config} on the given backend. */
    public static NatsBroker start(String config, BackendChoice choice) {
        return start(choice, broker -> config);
    }

    /**
     * Starts a broker whose config depends on its own directories (for example a resolver directory
     * under {@link #workDir()}): {@code config} is called once, before the server starts.
     */
    public static NatsBroker start(BackendChoice choice, java.util.function.Function<NatsBroker, String> config) {
        BrokerRuntime runtime = choice.kind() == BackendChoice.Kind.LOCAL
                ? new LocalBrokerRuntime(choice.binary())
                : new ContainerBrokerRuntime(choice.image());
        NatsBroker broker = new NatsBroker(runtime, choice.kind(), null);
        try {
            broker.config = config.apply(broker);
            runtime.start(broker.config);
            broker.readInfo();
        } catch (RuntimeException e) {
            runtime.destroy();
            throw e;
        }
        return broker;
    }

    /**
     * Starts a cluster member on fixed ports (its peers' routes name them before it starts);
     * {@code config} is called once, before the server starts.
     */
    static NatsBroker startAt(BackendChoice choice, int clientPort, int monitorPort,
            java.util.function.Function<NatsBroker, String> config) {
        BrokerRuntime runtime = choice.kind() == BackendChoice.Kind.LOCAL
                ? new LocalBrokerRuntime(choice.binary())
                : new ContainerBrokerRuntime(choice.image());
        NatsBroker broker = new NatsBroker(runtime, choice.kind(), null);
        try {
            broker.config = config.apply(broker);
            runtime.startAt(broker.config, clientPort, monitorPort);
            broker.readInfo();
        } catch (RuntimeException e) {
            runtime.destroy();
            throw e;
        }
        return broker;
    }

    private void readInfo() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(runtime.host(), runtime.port()), 5_000);
            socket.setSoTimeout(5_000);
            BufferedReader reader = new BufferedReader(
                    new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            String info = reader.readLine();
            if (info == null || !info.startsWith("INFO ")) {
                throw new BrokerException("broker did not send INFO: " + info);
            }
            serverId = field(SERVER_ID, info);
            version = ServerVersion.parse(field(VERSION, info));
        } catch (IOException e) {
            throw new BrokerException("cannot read the broker's INFO: " + e.getMessage(), e);
        }
    }

    private static String field(Pattern pattern, String info) {
        Matcher m = pattern.matcher(info);
        if (!m.find()) {
            throw new BrokerException("INFO without " + pattern.pattern());
        }
        return m.group(1);
    }

    /** {@code nats://host:port}. */
    public String url() {
        return "nats://" + runtime.host() + ":" + runtime.port();
    }

    /** {@code tls://host:port}, for configs that require TLS. */
    public String tlsUrl() {
        return "tls://" + runtime.host() + ":" + runtime.port();
    }

    public String host() {
        return runtime.host();
    }

    public int port() {
        return runtime.port();
    }

    /** The HTTP monitoring port ({@code /jsz}, {@code /healthz}) of a cluster member, or -1. */
    public int monitorPort() {
        return runtime.monitorPort();
    }

    /** The server's id ({@code N...}) from INFO; a new one after each restart. */
    public String serverId() {
        return serverId;
    }

    /** The server's version from INFO. */
    public ServerVersion version() {
        return version;
    }

    public BackendChoice.Kind backend() {
        return backend;
    }

    /** The config text the server runs now. */
    public String config() {
        return config;
    }

    /** A directory for files the config names; the server sees it at the same path. */
    public Path workDir() {
        return runtime.workDir();
    }

    /** The JetStream store directory, kept across {@link #restart()}. */
    public Path storeDir() {
        return runtime.storeDir();
    }

    /** The server's output, for waiting on a log line. */
    public BrokerLog log() {
        return runtime.log();
    }

    /** The last {@code lines} lines of the server's output, for failure reports. */
    public String logTail(int lines) {
        return String.join("\n", runtime.log().tail(lines));
    }

    public boolean running() {
        return runtime.running();
    }

    /** Resident memory of the server in KiB (local backend), or -1. */
    public long residentKib() {
        return runtime.residentKib();
    }

    /** Graceful shutdown (SIGTERM); returns when the server has exited. */
    public void stop() {
        runtime.stop();
    }

    /** SIGKILL, no shutdown work; returns when the process is gone. */
    public void kill() {
        runtime.kill();
    }

    /** Starts the stopped or killed server again on the same port with the same store directory. */
    public void restart() {
        runtime.restart();
        readInfo();
    }

    /** Replaces the config and sends SIGHUP; returns once the server logs the reload, throws if it refused. */
    public void reload(String newConfig) {
        runtime.reload(newConfig);
        config = newConfig;
    }

    /** Sends SIGHUP with the current config. */
    public void reload() {
        reload(config);
    }

    @Override
    public void close() {
        runtime.destroy();
    }

    @Override
    public String toString() {
        return "NatsBroker[" + backend + " " + url() + " " + version + "]";
    }
}
