package ai.cotal.core.connect;

import ai.cotal.core.internal.connect.LoggingErrorListener;
import ai.cotal.core.internal.connect.SelfSignedCredential;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.creds.Creds;
import io.nats.client.AuthenticationException;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.ErrorListener;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import javax.net.ssl.SSLContext;

/**
 * The one door every NATS connection of the SDK goes through (the only {@code Nats.connect} in
 * its main code): it applies the credential, the credential's inbox prefix
 * ({@code _INBOX_<connId>}), the 64 KiB control line, a label (connection name), TLS, the connect
 * timeout, the reconnect policy (none unless asked), listeners, thread pools and buffer sizes, and
 * turns jnats failures into {@link CotalException}s ({@code unauthenticated} when the broker
 * refused the credential, {@code unavailable} otherwise). Options are immutable and a connector
 * may connect any number of times from any thread; build with {@link #builder()}.
 */
public final class NatsConnector {
    /** The lowest {@link Builder#controlLine}: jnats' default limit. */
    public static final int MIN_CONTROL_LINE = 4096;
    private final List<String> servers;
    private final Creds creds;
    private final SelfSignedCredential selfSigned;
    private final String inboxPrefix;
    private final String label;
    private final Duration timeout;
    private final int maxReconnects;
    private final Duration reconnectWait;
    private final SSLContext sslContext;
    private final ErrorListener errorListener;
    private final ConnectionListener connectionListener;
    private final ExecutorService executor;
    private final ScheduledExecutorService timers;
    private final Integer bufferSize;
    private final int controlLine;
    private final Long reconnectBufferSize;
    private final String bearer;

    /**
     * The check every SDK options builder applies to its broker URLs: at least one, none null or
     * blank, else {@code bad-request} naming {@code servers}. Returns an immutable copy.
     */
    public static List<String> checkServers(List<String> servers) {
        if (servers == null || servers.isEmpty() || servers.stream().anyMatch(s -> s == null || s.isBlank())) {
            throw CotalException.badRequest("servers", "at least one broker URL");
        }
        return List.copyOf(servers);
    }

    private NatsConnector(Builder b) {
        this.servers = List.copyOf(b.servers);
        this.creds = b.creds;
        this.selfSigned = b.selfSigned;
        this.inboxPrefix = b.inboxPrefix != null ? b.inboxPrefix
                : creds != null ? creds.inboxPrefix() : selfSigned.inboxPrefix();
        this.label = b.label;
        this.timeout = b.timeout;
        this.maxReconnects = b.maxReconnects;
        this.reconnectWait = b.reconnectWait;
        this.sslContext = b.sslContext;
        this.errorListener = b.errorListener;
        this.connectionListener = b.connectionListener;
        this.executor = b.executor;
        this.timers = b.timers;
        this.bufferSize = b.bufferSize;
        this.controlLine = b.controlLine;
        this.reconnectBufferSize = b.reconnectBufferSize;
        this.bearer = b.bearer;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The jnats options this connector applies (for callers that add listeners of their own). */
    public Options.Builder options() {
        Options.Builder options = new Options.Builder().servers(servers.toArray(String[]::new))
                .authHandler(creds != null ? creds.authHandler() : selfSigned.authHandler()).inboxPrefix(inboxPrefix).connectionName(label)
                .maxControlLine(controlLine).connectionTimeout(timeout);
        if (maxReconnects == 0) {
            options.noReconnect();
        } else {
            options.maxReconnects(maxReconnects);
        }
        if (reconnectWait != null) {
            options.reconnectWait(reconnectWait);
        }
        if (sslContext != null) {
            options.sslContext(sslContext);
        }
        options.errorListener(errorListener != null ? errorListener : new LoggingErrorListener());
        if (connectionListener != null) {
            options.connectionListener(connectionListener);
        }
        if (executor != null) {
            options.executor(executor).scheduledExecutor(timers).connectExecutor(executor).callbackExecutor(executor)
                    .readerExecutor(executor).writerExecutor(executor);
        }
        if (bufferSize != null) {
            options.bufferSize(bufferSize);
        }
        if (reconnectBufferSize != null) {
            options.reconnectBufferSize(reconnectBufferSize);
        }
        if (bearer != null) {
            options.token(bearer.toCharArray());
        }
        return options;
    }

    /**
     * Connects; refusals and failures are {@link CotalException}s naming the label, never the
     * credential. A refused {@link Builder#selfSigned self-signed} JWT is {@code unavailable}: the
     * broker does not trust the space's signing key (yet), the caller presented nothing wrong.
     */
    public Connection connect() {
        try {
            return Nats.connect(options().build());
        } catch (AuthenticationException e) {
            throw new CotalException(selfSigned != null ? ErrorCode.UNAVAILABLE : ErrorCode.UNAUTHENTICATED, label
                    + ": the broker refused the credential (" + e.getMessage() + ")", e);
        } catch (IOException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, label + ": cannot connect to " + servers + " ("
                    + e.getMessage() + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CotalException(ErrorCode.UNAVAILABLE, label + ": interrupted while connecting", e);
        }
    }

    /** Builds a {@link NatsConnector}; {@link #build()} refuses missing or bad options by name. */
    public static final class Builder {
        private List<String> servers = List.of();
        private Creds creds;
        private SelfSignedCredential selfSigned;
        private String inboxPrefix;
        private String label = "cotal";
        private Duration timeout = Duration.ofSeconds(5);
        private int maxReconnects;
        private Duration reconnectWait;
        private SSLContext sslContext;
        private ErrorListener errorListener;
        private ConnectionListener connectionListener;
        private ExecutorService executor;
        private ScheduledExecutorService timers;
        private Integer bufferSize;
        private int controlLine = ServerConfig.MAX_CONTROL_LINE;
        private Long reconnectBufferSize;
        private String bearer;

        private Builder() {
        }

        public Builder servers(List<String> urls) {
            this.servers = Objects.requireNonNull(urls, "servers");
            return this;
        }

        public Builder server(String url) {
            return servers(List.of(url));
        }

        public Builder creds(Creds creds) {
            this.creds = creds;
            return this;
        }

        /**
         * Instead of {@link #creds}: a user JWT the SDK signs itself, re-read at every (re)connect
         * (SDK-internal; see {@link SelfSignedCredential}). The inbox prefix defaults to its key's.
         * Its type lives in a package exported only to the SDK's own modules, so an embedder
         * cannot name it: the warning that says so is the point, hence suppressed.
         */
        @SuppressWarnings("exports")
        public Builder selfSigned(SelfSignedCredential credential) {
            this.selfSigned = credential;
            return this;
        }

        /**
         * The CONNECT token: the bearer a client of the auth callout presents together with the
         * space's sentinel credential (SPEC §13.16); the label is then its inbox nonce.
         */
        public Builder bearer(String token) {
            this.bearer = token;
            return this;
        }

        /** The inbox prefix, when the credential was minted for a connId other than its identity. */
        public Builder inboxPrefix(String prefix) {
            this.inboxPrefix = prefix;
            return this;
        }

        /** The connection name the broker shows (monitoring, logs). */
        public Builder label(String label) {
            this.label = label;
            return this;
        }

        public Builder timeout(Duration timeout) {
            this.timeout = timeout;
            return this;
        }

        /** 0 (the default): never reconnect; -1: forever; n: at most n times. */
        public Builder maxReconnects(int attempts) {
            this.maxReconnects = attempts;
            return this;
        }

        /** The pause between reconnect attempts (jnats' default, 2 s, unless set). */
        public Builder reconnectWait(Duration wait) {
            this.reconnectWait = wait;
            return this;
        }

        /** TLS to the broker; {@code null} (the default): plaintext. */
        public Builder sslContext(SSLContext context) {
            this.sslContext = context;
            return this;
        }

        /** Default: a listener that logs through slf4j. */
        public Builder errorListener(ErrorListener listener) {
            this.errorListener = listener;
            return this;
        }

        public Builder connectionListener(ConnectionListener listener) {
            this.connectionListener = listener;
            return this;
        }

        /**
         * Thread pools shared by many connections: the connection's reader, writer, callbacks and
         * connect run on {@code executor}, its timers on {@code timers}. The caller owns and shuts
         * them down. Default: threads of the connection's own.
         */
        public Builder executors(ExecutorService executor, ScheduledExecutorService timers) {
            this.executor = Objects.requireNonNull(executor, "executor");
            this.timers = Objects.requireNonNull(timers, "timers");
            return this;
        }

        /** The socket read and write buffer size in bytes (jnats' default, 64 KiB, unless set). */
        public Builder bufferSize(int bytes) {
            this.bufferSize = bytes;
            return this;
        }

        /**
         * The client's control-line limit in bytes: {@link ServerConfig#MAX_CONTROL_LINE} (the
         * rendered broker's, room for rich JWTs in CONNECT) unless set; 4096 (jnats' default) to
         * that. jnats allocates about five times this per connection (the CONNECT text, the
         * protocol line buffers), so a short-lived connection whose CONNECT is known to be small
         * may lower it; a CONNECT or a received message line longer than the limit fails.
         */
        public Builder controlLine(int bytes) {
            this.controlLine = bytes;
            return this;
        }

        /** Bytes kept for publishes while reconnecting (jnats' default, 8 MiB, unless set); 0: none. */
        public Builder reconnectBufferSize(long bytes) {
            this.reconnectBufferSize = bytes;
            return this;
        }

        public NatsConnector build() {
            checkServers(servers);
            if (creds == null && selfSigned == null) {
                throw CotalException.badRequest("creds", "a connection needs a credential");
            }
            if (creds != null && selfSigned != null) {
                throw CotalException.badRequest("creds", "a connection has one credential, not creds and a self-signed one");
            }
            if (label == null || label.isBlank()) {
                throw CotalException.badRequest("label", "must not be blank");
            }
            if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                throw CotalException.badRequest("timeout", "must be positive");
            }
            if (maxReconnects < -1) {
                throw CotalException.badRequest("maxReconnects", "must be -1, 0 or positive");
            }
            if (reconnectWait != null && reconnectWait.isNegative()) {
                throw CotalException.badRequest("reconnectWait", "must not be negative");
            }
            if (bufferSize != null && bufferSize <= 0) {
                throw CotalException.badRequest("bufferSize", "must be positive");
            }
            if (controlLine < MIN_CONTROL_LINE || controlLine > ServerConfig.MAX_CONTROL_LINE) {
                throw CotalException.badRequest("controlLine", "must be " + MIN_CONTROL_LINE + " to "
                        + ServerConfig.MAX_CONTROL_LINE + " bytes");
            }
            if (reconnectBufferSize != null && reconnectBufferSize < 0) {
                throw CotalException.badRequest("reconnectBufferSize", "must not be negative");
            }
            if (bearer != null && bearer.isBlank()) {
                throw CotalException.badRequest("bearer", "must not be blank");
            }
            if (inboxPrefix != null && !inboxPrefix.matches("_INBOX_[A-Za-z0-9_-]{8,120}")) {
                throw CotalException.badRequest("inboxPrefix", "must be _INBOX_<connId>");
            }
            return new NatsConnector(this);
        }
    }
}
