package ai.cotal.auth.service;

import ai.cotal.core.CotalException;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.workspace.PrivateFiles;
import ai.cotal.workspace.SecretKeys;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

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
    public static final class Options extends ReplicaLaneOptions {
        private final Path manifest;
        private final Path stateRoot;

        private Options(Builder b) {
            super(b);
            this.manifest = b.manifest;
            this.stateRoot = b.stateRoot;
        }

        public static Builder builder() {
            return new Builder();
        }

        public Path manifest() {
            return manifest;
        }

        public Path stateRoot() {
            return stateRoot;
        }

        public SecretStore secretStore() {
            return store();
        }

        @Override
        public String toString() {
            return "CalloutHost.Options[servers=" + servers() + ", manifest=" + manifest + ", stateRoot=" + stateRoot
                    + ", ttl=" + ttl() + ", retry=" + retry() + "]";
        }

        /** Builds {@link Options}; {@link #build()} names the first bad option. */
        public static final class Builder extends ReplicaLaneOptions.Builder<Builder> {
            private Path manifest;
            private Path stateRoot;

            private Builder() {
            }

            @Override
            Builder self() {
                return this;
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
                this.store = store;
                return this;
            }

            public Options build() {
                checkServers();
                if (manifest == null) {
                    throw CotalException.badRequest("manifest", "is required");
                }
                if (stateRoot == null) {
                    throw CotalException.badRequest("stateRoot", "is required");
                }
                checkStore("secretStore");
                checkLanes();
                return new Options(this);
            }
        }
    }

    private final Options options;
    private final ReplicaLanes lanes;
    /** The spaces applied, each with its remote signer's socket (empty: the store's seed). */
    private final Map<String, Optional<Path>> spaces = new LinkedHashMap<>();

    private CalloutHost(Options options) {
        this.options = options;
        this.lanes = options.newLanes();
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
        Map<String, Optional<Path>> wanted = new LinkedHashMap<>(); // each space's signer socket, if remote
        for (int i = 0; i < manifest.spaces().size(); i++) {
            AuthHostManifest.Entry entry = manifest.spaces().get(i);
            if (entry.serviceEndpoints()) {
                throw CotalException.badRequest("spaces[" + i + "].serviceEndpoints", "a callout host issues no"
                        + " service-endpoint connection: keep space '" + entry.space() + "' off replica manifests");
            }
            wanted.put(entry.space(), Optional.ofNullable(entry.signerSocket()));
        }
        for (String space : List.copyOf(spaces.keySet())) {
            if (!wanted.containsKey(space) || !wanted.get(space).equals(spaces.get(space))) {
                lanes.remove(space); // on return the lane has left the queue group (a changed signer: started again below)
                spaces.remove(space);
            }
        }
        wanted.forEach((space, socket) -> {
            if (spaces.putIfAbsent(space, socket) == null) {
                lanes.add(space, options.stateRoot().resolve(SecretKeys.spaceSegment(space)), socket.orElse(null));
            }
        });
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
