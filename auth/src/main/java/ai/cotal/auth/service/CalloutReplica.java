package ai.cotal.auth.service;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.secrets.SecretStore;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Callout replicas (SPEC §13.19): extra auth-callout responders, in the space's queue group, that
 * answer from the space's ledger and credential rows instead of the plane. A replica cannot issue
 * service-endpoint connections, so it refuses a space whose service-endpoint admission is open
 * ({@link ServiceEndpointAdmission#admitsServiceEndpoints}, the same read): a single-space replica
 * refuses to start; a multi-space replica names the space, answers for the others, and retries the
 * refused space every {@code retry} (5 s by default). A lane checks admission when it opens: one
 * already open keeps answering and refuses every {@code endpoint-server} bearer. {@link CalloutHost}
 * runs the same lanes from a manifest. Thread-safe.
 */
public final class CalloutReplica implements AutoCloseable {
    /**
     * What a replica serves, validated in {@link Builder#build()}. {@code stateDirs} maps each space
     * to the state directory holding its ledger (the plane's, shared or synced). {@code ttl} is the
     * lifetime of the replica's standing credentials (default 15 min), {@code retry} how often a
     * refused space is tried again (default 5 s); {@code onRefusal} hears every refusal (space,
     * reason). Immutable; {@code toString()} never shows the store.
     */
    public static final class Options extends ReplicaLaneOptions {
        private final Map<String, Path> stateDirs;
        private final Map<String, Path> signerSockets;

        private Options(Builder b) {
            super(b);
            this.stateDirs = Map.copyOf(new LinkedHashMap<>(b.stateDirs));
            this.signerSockets = Map.copyOf(b.signerSockets);
        }

        public static Builder builder() {
            return new Builder();
        }

        public Map<String, Path> stateDirs() {
            return stateDirs;
        }

        /** The spaces whose lanes sign through a remote signer, with its socket (the others load the seed). */
        public Map<String, Path> signerSockets() {
            return signerSockets;
        }

        public SecretStore secrets() {
            return store();
        }

        @Override
        public String toString() {
            return "CalloutReplica.Options[servers=" + servers() + ", stateDirs=" + stateDirs + ", ttl=" + ttl()
                    + ", retry=" + retry() + "]";
        }

        /** Builds {@link Options}; {@link #build()} names the first bad option. */
        public static final class Builder extends ReplicaLaneOptions.Builder<Builder> {
            private Map<String, Path> stateDirs = Map.of();
            private Map<String, Path> signerSockets = Map.of();

            private Builder() {
            }

            @Override
            Builder self() {
                return this;
            }

            /** Each space answered for, with the state directory holding its ledger. */
            public Builder stateDirs(Map<String, Path> stateDirs) {
                this.stateDirs = stateDirs;
                return this;
            }

            /**
             * Spaces of {@link #stateDirs} whose lanes sign through that space's remote signer
             * ({@code cotal-auth signer}, SPEC §16), by its Unix socket: as a manifest entry's
             * {@code signerSocket} does for a {@link CalloutHost}. Default: none.
             */
            public Builder signerSockets(Map<String, Path> signerSockets) {
                this.signerSockets = signerSockets;
                return this;
            }

            public Builder secrets(SecretStore store) {
                this.store = store;
                return this;
            }

            public Options build() {
                checkServers();
                if (stateDirs == null || stateDirs.isEmpty()) {
                    throw CotalException.badRequest("stateDirs", "name at least one space");
                }
                if (stateDirs.entrySet().stream().anyMatch(e -> e.getKey() == null || e.getValue() == null)) {
                    throw CotalException.badRequest("stateDirs", "a space and its state directory are both required");
                }
                if (signerSockets == null || signerSockets.entrySet().stream().anyMatch(e -> e.getKey() == null
                        || e.getValue() == null || !stateDirs.containsKey(e.getKey()))) {
                    throw CotalException.badRequest("signerSockets", "each names a space of stateDirs and its socket");
                }
                signerSockets.forEach((space, socket) -> AuthHostManifest.checkSignerSocket(socket,
                        "signerSockets." + space));
                checkStore("secrets");
                checkLanes();
                return new Options(this);
            }
        }
    }

    private final ReplicaLanes lanes;

    private CalloutReplica(Options options) {
        this.lanes = options.newLanes();
    }

    /** Starts a lane per space; see the class comment for refused spaces. */
    public static CalloutReplica start(Options options) {
        CalloutReplica replica = new CalloutReplica(options);
        for (Map.Entry<String, Path> space : options.stateDirs().entrySet()) {
            String why = replica.lanes.add(space.getKey(), space.getValue(), options.signerSockets().get(space.getKey()));
            if (why != null && options.stateDirs().size() == 1) {
                replica.close();
                throw new CotalException(ErrorCode.FAILED_PRECONDITION, "callout replica refused space \"" + space.getKey()
                        + "\": " + why);
            }
        }
        return replica;
    }

    /** The spaces answered for now. */
    public java.util.Set<String> serving() {
        return lanes.serving();
    }

    /** The refused spaces and why (retried every {@code retry}). */
    public Map<String, String> refused() {
        return lanes.refused();
    }

    @Override
    public void close() {
        lanes.close();
    }
}
