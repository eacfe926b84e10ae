package ai.cotal.testbroker;

import java.nio.file.Path;

/** One backend's way of running a nats-server: the steps {@link NatsBroker} composes. */
interface BrokerRuntime {
    /** Starts with {@code config} on a free port; returns when the server says it is ready. */
    void start(String config);

    /**
     * Starts with {@code config} on the given client port and monitoring port (a cluster member:
     * its peers' routes are rendered before it starts); returns when the server says it is ready.
     */
    void startAt(String config, int clientPort, int monitorPort);

    /** The HTTP monitoring port, or -1 when the server has none. */
    int monitorPort();

    /** The host a client on this machine connects to. */
    String host();

    /** The client port, the same across restarts. */
    int port();

    /** A directory for files the config names (resolver directory, certificates); same path for the server. */
    Path workDir();

    /** The server's store directory (JetStream). */
    Path storeDir();

    BrokerLog log();

    boolean running();

    /** Graceful shutdown (SIGTERM); waits for the process to exit. */
    void stop();

    /** SIGKILL; waits for the process to be gone. */
    void kill();

    /** Starts again on the same port with the same store directory and the current config. */
    void restart();

    /** Writes {@code config} and sends SIGHUP; returns when the server reports the reload. */
    void reload(String config);

    /** Resident memory of the server process in KiB, or -1 when it cannot be read. */
    long residentKib();

    /** Stops the server if running and removes the work directory. */
    void destroy();
}
