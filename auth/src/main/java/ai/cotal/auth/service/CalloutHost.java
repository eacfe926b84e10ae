package ai.cotal.auth.service;

import ai.cotal.core.CotalException;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.workspace.PrivateFiles;
import ai.cotal.workspace.SecretKeys;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * A callout host (SPEC §13.19): the callout replicas of the spaces a manifest lists, read with the
 * auth host's parser ({@link AuthHost#parseAuthHostManifest}). Each space is answered from its
 * ledger under {@code <stateRoot>/space.<hex of the name>} (the auth host's layout, so a host
 * sharing the auth host's state root reads its lanes' ledgers). A space whose service-endpoint
 * admission is open is named and retried every {@code retry} (5 s) while the others are answered;
 * unlike a single-space {@link CalloutReplica}, the host starts whatever its manifest holds.
 * {@link #apply()} re-reads the manifest and writes {@code <manifest>.applied} once the change is in
 * effect. Thread-safe.
 */
public final class CalloutHost implements AutoCloseable {
    /**
     * What the host runs from, validated in {@link Builder#build()}: the broker URLs, the manifest
     * file, the state root holding each space's ledger, the secret store, the standing credentials'
     * lifetime ({@code ttl}, default 15 min), the retry interval of a refused space ({@code retry},
     * default 5 s), the clock and a listener hearing every refusal (space, reason). Immutable;
     * {@code toString()} never shows the store.
     */
    public static final class Options {
        private final List<String> servers;
        private final Path manifest;
        private final Path stateRoot;
        private final SecretStore secretStore;
        private final Duration ttl;
        private final Duration retry;
        private final Clock clock;
        private final BiConsumer<String, String> onRefusal;

        private Options(Builder b) {
            this.servers = List.copyOf(b.servers);
            this.manifest = b.manifest;
            this.stateRoot = b.stateRoot;
            this.secretStore = b.secretStore;
            this.ttl = b.ttl;
            this.retry = b.retry;
            this.clock = b.clock;
            this.onRefusal = b.onRefusal;
        }

        public static Builder builder() {
            return new Builder();
        }

        public List<String> servers() {
            return servers;
        }

        public Path manifest() {
            return manifest;
        }

        public Path stateRoot() {
            return stateRoot;
        }

        public SecretStore secretStore() {
            return secretStore;
        }

        public Duration ttl() {
            return ttl;
        }

        public Duration retry() {
            return retry;
        }

        public Clock clock() {
            return clock;
        }

        public BiConsumer<String, String> onRefusal() {
            return onRefusal;
        }

        @Override
        public String toString() {
            return "CalloutHost.Options[servers=" + servers + ", manifest=" + manifest + ", stateRoot=" + stateRoot
                    + ", ttl=" + ttl + ", retry=" + retry + "]";
        }

        /** Builds {@link Options}; {@link #build()} names the first bad option. */
        public static final class Builder {
            private List<String> servers = List.of();
            private Path manifest;
            private Path stateRoot;
            private SecretStore secretStore;
            private Duration ttl = Duration.ofMinutes(15);
            private Duration retry = Duration.ofSeconds(5);
            private Clock clock = Clock.systemUTC();
            private BiConsumer<String, String> onRefusal = (space, why) -> { };

            private Builder() {
            }

            public Builder servers(List<String> urls) {
                this.servers = urls;
                return this;
            }

            public Builder server(String url) {
                return servers(List.of(url));
            }

            /** The manifest file ({@code {"ver": 1, "spaces": [...]}}) that {@link CalloutHost#apply()} reads. */
            public Builder manifest(Path file) {
                this.manifest = file;
                return this;
            }

            /** The directory holding each space's ledger ({@code space.<hex of the name>}), as the auth host lays it out. */
            public Builder stateRoot(Path root) {
                this.stateRoot = root;
                return this;
            }

            public Builder secretStore(SecretStore store) {
                this.secretStore = store;
                return this;
            }

            public Builder ttl(Duration ttl) {
                this.ttl = ttl;
                return this;
            }

            public Builder retry(Duration every) {
                this.retry = every;
                return this;
            }

            public Builder clock(Clock clock) {
                this.clock = clock;
                return this;
            }

            public Builder onRefusal(BiConsumer<String, String> listener) {
                this.onRefusal = listener;
                return this;
            }

            public Options build() {
                NatsConnector.checkServers(servers);
                if (manifest == null) {
                    throw CotalException.badRequest("manifest", "is required");
                }
                if (stateRoot == null) {
                    throw CotalException.badRequest("stateRoot", "is required");
                }
                if (secretStore == null) {
                    throw CotalException.badRequest("secretStore", "is required");
                }
                if (ttl == null || ttl.isNegative() || ttl.isZero()) {
                    throw CotalException.badRequest("ttl", "must be positive");
                }
                if (retry == null || retry.isNegative() || retry.isZero()) {
                    throw CotalException.badRequest("retry", "must be positive");
                }
                if (clock == null) {
                    throw CotalException.badRequest("clock", "is required");
                }
                if (onRefusal == null) {
                    throw CotalException.badRequest("onRefusal", "is required");
                }
                return new Options(this);
            }
        }
    }

    private final Options options;
    private final ReplicaLanes lanes;
    private final Set<String> spaces = new LinkedHashSet<>();

    private CalloutHost(Options options) {
        this.options = options;
        this.lanes = new ReplicaLanes(options.servers(), options.secretStore(), options.ttl(), options.retry(),
                options.clock(), options.onRefusal());
    }

    /** Applies the manifest once; a manifest that cannot be read or applied closes the host and throws. */
    public static CalloutHost start(Options options) {
        CalloutHost host = new CalloutHost(options);
        try {
            host.apply();
        } catch (RuntimeException e) {
            host.close();
            throw e;
        }
        return host;
    }

    /** The path of the applied copy: {@code <manifest>.applied}. */
    public Path appliedFile() {
        return AuthHostManifest.appliedFile(options.manifest());
    }

    /**
     * Applies the manifest as it is on disk now. A manifest that does not parse, or whose entry
     * sets {@code serviceEndpoints} (a replica issues no service-endpoint connection), throws
     * {@code bad-request} naming the field and changes nothing. Otherwise the removed spaces' lanes
     * leave the queue group, the new spaces start (or are refused and retried), and then
     * {@code <manifest>.applied} is written (the exact bytes applied, 0600, atomic).
     */
    public synchronized void apply() {
        AuthHostManifest.OnDisk onDisk = AuthHostManifest.read(options.manifest(), "callout host");
        byte[] bytes = onDisk.bytes();
        AuthHostManifest manifest = onDisk.manifest();
        Set<String> wanted = new LinkedHashSet<>();
        for (int i = 0; i < manifest.spaces().size(); i++) {
            AuthHostManifest.Entry entry = manifest.spaces().get(i);
            if (entry.serviceEndpoints()) {
                throw CotalException.badRequest("spaces[" + i + "].serviceEndpoints", "a callout host issues no"
                        + " service-endpoint connection: keep space '" + entry.space() + "' off replica manifests");
            }
            wanted.add(entry.space());
        }
        for (String space : List.copyOf(spaces)) {
            if (!wanted.contains(space)) {
                lanes.remove(space); // on return the lane has left the queue group
                spaces.remove(space);
            }
        }
        for (String space : wanted) {
            if (spaces.add(space)) {
                lanes.add(space, options.stateRoot().resolve(SecretKeys.spaceSegment(space)));
            }
        }
        PrivateFiles.write(appliedFile(), bytes);
    }

    /** The spaces answered for now. */
    public Set<String> serving() {
        return lanes.serving();
    }

    /** The refused spaces and why (retried every {@code retry} while the manifest lists them). */
    public Map<String, String> refused() {
        return lanes.refused();
    }

    /** Closes every lane and stops retrying. */
    @Override
    public synchronized void close() {
        lanes.close();
    }
}
