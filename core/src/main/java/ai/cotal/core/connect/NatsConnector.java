package ai.cotal.core.connect;

import ai.cotal.core.internal.connect.LoggingErrorListener;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.creds.Creds;
import io.nats.client.AuthenticationException;
import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.SSLContext;

/**
 * The one door every NATS connection of the SDK goes through: it applies the credential, the
 * credential's inbox prefix ({@code _INBOX_<connId>}), the 64 KiB control line, a label
 * (connection name), the connect timeout and the reconnect policy (none unless asked), and turns
 * jnats failures into {@link CotalException}s ({@code unauthenticated} when the broker refused
 * the credential, {@code unavailable} otherwise). Options are immutable; build with
 * {@link #builder()}.
 */
public final class NatsConnector {
    private final List<String> servers;
    private final Creds creds;
    private final String inboxPrefix;
    private final String label;
    private final Duration timeout;
    private final int maxReconnects;
    private final SSLContext sslContext;
    private final ErrorListener errorListener;

    private NatsConnector(Builder b) {
        this.servers = List.copyOf(b.servers);
        this.creds = b.creds;
        this.inboxPrefix = b.inboxPrefix != null ? b.inboxPrefix : b.creds.inboxPrefix();
        this.label = b.label;
        this.timeout = b.timeout;
        this.maxReconnects = b.maxReconnects;
        this.sslContext = b.sslContext;
        this.errorListener = b.errorListener;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The jnats options this connector applies (for callers that add listeners of their own). */
    public Options.Builder options() {
        Options.Builder options = new Options.Builder().servers(servers.toArray(String[]::new))
                .authHandler(creds.authHandler()).inboxPrefix(inboxPrefix).connectionName(label)
                .maxControlLine(ServerConfig.MAX_CONTROL_LINE).connectionTimeout(timeout);
        if (maxReconnects == 0) {
            options.noReconnect();
        } else {
            options.maxReconnects(maxReconnects);
        }
        if (sslContext != null) {
            options.sslContext(sslContext);
        }
        options.errorListener(errorListener != null ? errorListener : new LoggingErrorListener());
        return options;
    }

    /** Connects; refusals and failures are {@link CotalException}s naming the label, never the credential. */
    public Connection connect() {
        try {
            return Nats.connect(options().build());
        } catch (AuthenticationException e) {
            throw new CotalException(ErrorCode.UNAUTHENTICATED, label + ": the broker refused the credential ("
                    + e.getMessage() + ")", e);
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
        private String inboxPrefix;
        private String label = "cotal";
        private Duration timeout = Duration.ofSeconds(5);
        private int maxReconnects;
        private SSLContext sslContext;
        private ErrorListener errorListener;

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

        public Builder sslContext(SSLContext context) {
            this.sslContext = context;
            return this;
        }

        public Builder errorListener(ErrorListener listener) {
            this.errorListener = listener;
            return this;
        }

        public NatsConnector build() {
            if (servers.isEmpty() || servers.stream().anyMatch(s -> s == null || s.isBlank())) {
                throw CotalException.badRequest("servers", "at least one server URL");
            }
            if (creds == null) {
                throw CotalException.badRequest("creds", "a connection needs a credential");
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
            if (inboxPrefix != null && !inboxPrefix.matches("_INBOX_[A-Za-z0-9_-]{8,120}")) {
                throw CotalException.badRequest("inboxPrefix", "must be _INBOX_<connId>");
            }
            return new NatsConnector(this);
        }
    }
}
