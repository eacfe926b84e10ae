package ai.cotal.core.config;

import ai.cotal.core.CotalException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Options of a server config render, validated in {@link Builder#build()}. The transport and the
 * store directory have no default: a render states both. Immutable and thread-safe.
 */
public final class ServerConfigOptions {
    /** The port that lets the server choose a free one (nats-server's {@code -1}). */
    public static final int ANY_PORT = -1;

    private final String host;
    private final int port;
    private final Transport transport;
    private final Path storeDir;
    private final Optional<Long> maxFileStore;
    private final AccountResolver resolver;
    private final List<String> extraAccounts;
    private final Clock clock;
    private final Optional<BrokerPolicy> policy;
    private final Optional<ClusterConfig> cluster;

    private ServerConfigOptions(Builder b) {
        this.host = b.host;
        this.port = b.port;
        this.transport = b.transport;
        this.storeDir = b.storeDir;
        this.maxFileStore = Optional.ofNullable(b.maxFileStore);
        this.resolver = b.resolver;
        this.extraAccounts = List.copyOf(b.extraAccounts);
        this.clock = b.clock;
        this.policy = Optional.ofNullable(b.policy);
        this.cluster = Optional.ofNullable(b.cluster);
    }

    public static Builder builder() {
        return new Builder();
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public Transport transport() {
        return transport;
    }

    public Path storeDir() {
        return storeDir;
    }

    public Optional<Long> maxFileStore() {
        return maxFileStore;
    }

    public AccountResolver resolver() {
        return resolver;
    }

    /** Account JWTs preloaded besides the spaces (e.g. a callout account). */
    public List<String> extraAccounts() {
        return extraAccounts;
    }

    /** These options with {@code accountJwts} as the extra accounts instead, validated again. */
    public ServerConfigOptions withExtraAccounts(List<String> accountJwts) {
        Builder b = builder().host(host).port(port).transport(transport).storeDir(storeDir).resolver(resolver)
                .extraAccounts(accountJwts).clock(clock);
        maxFileStore.ifPresent(b::maxFileStore);
        policy.ifPresent(b::policy);
        cluster.ifPresent(b::cluster);
        return b.build();
    }

    public Clock clock() {
        return clock;
    }

    /** The broker policy this render must agree with, when the host keeps one. */
    public Optional<BrokerPolicy> policy() {
        return policy;
    }

    /** This server's place in a cluster ({@code server_name} and {@code cluster {}}), when it has one. */
    public Optional<ClusterConfig> cluster() {
        return cluster;
    }

    /** Builds {@link ServerConfigOptions}. */
    public static final class Builder {
        private String host = "127.0.0.1";
        private int port = 4222;
        private Transport transport;
        private Path storeDir;
        private Long maxFileStore;
        private AccountResolver resolver = AccountResolver.memory();
        private List<String> extraAccounts = List.of();
        private Clock clock = Clock.systemUTC();
        private BrokerPolicy policy;
        private ClusterConfig cluster;

        private Builder() {
        }

        public Builder host(String host) {
            this.host = host;
            return this;
        }

        /**
         * The client port (default 4222); {@link #ANY_PORT} lets the server choose a free one,
         * which {@code NatsServer.url()} then names.
         */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder transport(Transport transport) {
            this.transport = transport;
            return this;
        }

        public Builder storeDir(Path storeDir) {
            this.storeDir = storeDir;
            return this;
        }

        /** JetStream's file-store ceiling in bytes (positive). */
        public Builder maxFileStore(long bytes) {
            this.maxFileStore = bytes;
            return this;
        }

        public Builder resolver(AccountResolver resolver) {
            this.resolver = Objects.requireNonNull(resolver, "resolver");
            return this;
        }

        public Builder extraAccounts(List<String> accountJwts) {
            this.extraAccounts = Objects.requireNonNull(accountJwts, "extraAccounts");
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** The broker's policy: {@link #build()} refuses a transport or resolver that differs from it. */
        public Builder policy(BrokerPolicy policy) {
            this.policy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /** Renders this server as a member of a cluster (SPEC §3.4); absent, a single server. */
        public Builder cluster(ClusterConfig cluster) {
            this.cluster = Objects.requireNonNull(cluster, "cluster");
            return this;
        }

        public ServerConfigOptions build() {
            if (host == null || host.isBlank() || !host.matches("[A-Za-z0-9.:\\-\\[\\]]+")) {
                throw CotalException.badRequest("host", "must be a host name or IP address");
            }
            if ((port < 1 || port > 65535) && port != ANY_PORT) {
                throw CotalException.badRequest("port", "must be 1 to 65535, or ANY_PORT (-1)");
            }
            if (transport == null) {
                throw CotalException.badRequest("transport", "must be stated: plaintext or tls-required");
            }
            if (storeDir == null || storeDir.toString().isBlank()) {
                throw CotalException.badRequest("storeDir", "must be given");
            }
            if (maxFileStore != null && maxFileStore <= 0) {
                throw CotalException.badRequest("maxFileStore", "must be positive");
            }
            ServerConfigOptions options = new ServerConfigOptions(this);
            if (policy != null) {
                policy.check(options);
            }
            return options;
        }
    }
}
