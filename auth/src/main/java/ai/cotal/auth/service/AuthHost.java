package ai.cotal.auth.service;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.ServiceEndpoints;
import ai.cotal.auth.metrics.MeterSink;
import ai.cotal.core.CotalException;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.core.stores.StoreReplicas;
import ai.cotal.workspace.PrivateFiles;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A multi-space host (SPEC §13.19): one {@link AuthService} lane per manifest entry, each with its
 * own plane, callout and faces under {@code <stateRoot>/space.<hex of the name>}. {@link #apply()} re-reads the
 * manifest: a malformed one is refused and the running lanes stay as they are; otherwise only the
 * lanes whose entry changed are reopened (closed, then started), removed lanes close and new ones
 * start; then {@code <manifest>.applied} is written (the exact bytes applied, 0600). Thread-safe.
 */
public final class AuthHost implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AuthHost.class);

    /**
     * What the host runs from, validated in {@link Builder#build()}: the broker URLs, the manifest
     * file, the root under which each lane keeps its state, the secret store, the clock and the
     * authority stores' replica count every lane opens its plane with. Immutable;
     * {@code toString()} never shows the store.
     */
    public static final class Options extends HostOptions {
        private final Path manifest;
        private final Path stateRoot;
        private final StoreReplicas storeReplicas;
        private final ai.cotal.auth.LedgerStore ledger;
        private final MeterSink meterSink; // null: nothing is measured

        private Options(Builder b) {
            super(b);
            this.manifest = b.manifest;
            this.stateRoot = b.stateRoot;
            this.storeReplicas = b.storeReplicas;
            this.ledger = b.ledger;
            this.meterSink = b.meterSink;
        }

        /** Whether the lanes report to a meter sink (SPEC §13.21). */
        public boolean metered() {
            return meterSink != null;
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

        /** The replica count of every lane's authority stores (SPEC §13.19; default {@link StoreReplicas#one()}). */
        public StoreReplicas storeReplicas() {
            return storeReplicas;
        }

        /** Where every lane's actor ledger and IdP pin live (SPEC §13.23; default {@code LedgerStore.files()}). */
        public ai.cotal.auth.LedgerStore ledger() {
            return ledger;
        }

        @Override
        public String toString() {
            return "AuthHost.Options[servers=" + servers() + ", manifest=" + manifest + ", stateRoot=" + stateRoot
                    + ", storeReplicas=" + storeReplicas + ", ledger=" + ledger + ", metered=" + metered() + "]";
        }

        /** Builds {@link Options}; {@link #build()} names the first bad option. */
        public static final class Builder extends HostOptions.Builder<Builder> {
            private Path manifest;
            private Path stateRoot;
            private StoreReplicas storeReplicas = StoreReplicas.one();
            private ai.cotal.auth.LedgerStore ledger = ai.cotal.auth.LedgerStore.files();
            private MeterSink meterSink;

            private Builder() {
            }

            /**
             * Where every lane reports its meters (SPEC §13.21), each with the per-space tag
             * {@code space} (lanes of several spaces share the sink). Unset or null: nothing is
             * measured.
             */
            public Builder meterSink(MeterSink sink) {
                this.meterSink = sink;
                return this;
            }

            @Override
            Builder self() {
                return this;
            }

            /** The manifest file ({@code {"ver": 1, "spaces": [...]}}) that {@link AuthHost#apply()} reads. */
            public Builder manifest(Path file) {
                this.manifest = file;
                return this;
            }

            /** The directory under which each lane keeps its state ({@code space.<hex of the name>}). */
            public Builder stateRoot(Path root) {
                this.stateRoot = root;
                return this;
            }

            public Builder secretStore(SecretStore store) {
                this.store = store;
                return this;
            }

            /**
             * The authority stores' replica count every lane's plane creates or verifies (default
             * {@link StoreReplicas#one()}; {@code of(3)} on a cluster of three or more). It is the
             * host's, not a manifest entry's: every lane runs on the same servers, and a re-applied
             * manifest never changes it (a lane whose stores have another count refuses to start
             * as drift, SPEC §6).
             */
            public Builder storeReplicas(StoreReplicas replicas) {
                this.storeReplicas = replicas;
                return this;
            }

            /**
             * Where every lane's actor ledger and IdP pin live (SPEC §13.23; default
             * {@code LedgerStore.files()}): the host's, like {@link #storeReplicas}.
             */
            public Builder ledger(ai.cotal.auth.LedgerStore placement) {
                this.ledger = placement;
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
                checkClock();
                if (storeReplicas == null) {
                    throw CotalException.badRequest("storeReplicas", "is required (StoreReplicas.one() by default)");
                }
                if (ledger == null) {
                    throw CotalException.badRequest("ledger", "is required (LedgerStore.files() by default)");
                }
                return new Options(this);
            }
        }
    }

    private final Options options;
    private final Map<String, Lane> lanes = new LinkedHashMap<>();

    /** A running lane, with the remote signer's client it owns (null: the seed is in the host's store). */
    private record Lane(AuthHostManifest.Entry entry, AuthAuthorityPlane plane, AuthService service,
            RemoteSpaceSigner signer) {
        void close() {
            service.close();
            plane.close(); // throws when the lane cannot close: its signer stays open for the retry
            if (signer != null) {
                signer.close();
            }
        }
    }

    private AuthHost(Options options) {
        this.options = options;
    }

    /** {@code parseAuthHostManifest}: the parser {@link #apply()} uses. */
    public static AuthHostManifest parseAuthHostManifest(String text) {
        return AuthHostManifest.parse(text);
    }

    /** Starts every lane of the manifest; any failure closes the lanes already started. */
    public static AuthHost start(Options options) {
        AuthHost host = new AuthHost(options);
        try {
            host.apply();
        } catch (RuntimeException e) {
            host.close();
            throw e;
        }
        return host;
    }

    /** The running lanes, by space. */
    public synchronized Map<String, AuthService> lanes() {
        Map<String, AuthService> view = new LinkedHashMap<>();
        lanes.forEach((space, lane) -> view.put(space, lane.service()));
        return view;
    }

    /** The path of the applied copy: {@code <manifest>.applied}. */
    public Path appliedFile() {
        return AuthHostManifest.appliedFile(options.manifest());
    }

    /**
     * Applies the manifest as it is on disk now. A malformed manifest throws {@code bad-request}
     * and changes nothing. A lane that fails to start throws after the others were applied; the
     * applied file is then not rewritten.
     */
    public synchronized void apply() {
        AuthHostManifest.OnDisk onDisk = AuthHostManifest.read(options.manifest(), "host");
        byte[] bytes = onDisk.bytes();
        AuthHostManifest manifest = onDisk.manifest();
        Map<String, AuthHostManifest.Entry> wanted = new LinkedHashMap<>();
        manifest.spaces().forEach(e -> wanted.put(e.space(), e));
        RuntimeException failure = null;
        for (String space : List.copyOf(lanes.keySet())) {
            AuthHostManifest.Entry entry = wanted.get(space);
            if (entry == null || !entry.equals(lanes.get(space).entry())) {
                LOG.info("auth-host: closing lane {}", space);
                try {
                    lanes.get(space).close();
                    lanes.remove(space); // only once closed: a lane that could not close stays owned and retried
                } catch (RuntimeException e) {
                    LOG.error("auth-host: lane {} did not close: {}", space, e.getMessage());
                    failure = failure == null ? e : failure;
                }
            }
        }
        for (AuthHostManifest.Entry entry : wanted.values()) {
            if (lanes.containsKey(entry.space())) {
                continue; // unchanged, or still closing after a failed close
            }
            try {
                lanes.put(entry.space(), startLane(entry));
                LOG.info("auth-host: lane {} started (service endpoints {})", entry.space(), entry.serviceEndpoints());
            } catch (RuntimeException e) {
                LOG.error("auth-host: lane {} did not start: {}", entry.space(), e.getMessage());
                failure = failure == null ? e : failure;
            }
        }
        if (failure != null) {
            throw failure;
        }
        PrivateFiles.write(appliedFile(), bytes);
    }

    private Lane startLane(AuthHostManifest.Entry entry) {
        // the encoded segment, never the raw name: a space name may hold "/", "." or ".."
        Path stateDir = options.stateRoot().resolve(ai.cotal.workspace.SecretKeys.spaceSegment(entry.space()));
        PrivateFiles.ensureDirectory(options.stateRoot(), stateDir);
        AuthServiceOptions.Builder faces = AuthServiceOptions.builder();
        if (entry.oidc() != null) {
            faces.oidc(entry.oidc().issuer(), entry.oidc().clientId(), entry.oidc().algorithms());
        }
        faces.grantPolicy(entry.grantPolicy());
        RemoteSpaceSigner remote = null;
        AuthAuthorityPlane plane = null;
        try {
            if (entry.signerSocket() != null) { // the seed stays with the signer (SPEC §16.4)
                remote = RemoteSpaceSigner.open(entry.signerSocket(), entry.space(), "lane " + entry.space() + ": ");
            }
            ServiceMaterial.Loaded material = ServiceMaterial.forService(options.secretStore(), entry.space(),
                    remote == null ? null : remote.signer());
            AuthPlaneOptions.Builder lane = AuthPlaneOptions.builder().servers(options.servers()).space(entry.space())
                    .secretStore(options.secretStore()).signer(material.signer()).callout(material.callout())
                    .stateDir(stateDir)
                    .clock(options.clock()).storeReplicas(options.storeReplicas()).ledger(options.ledger())
                    .serviceEndpoints(entry.serviceEndpoints() ? ServiceEndpoints.normal() : null);
            if (options.metered()) {
                lane.meterSink(options.meterSink).meterSpaceTag(true);
            }
            plane = AuthAuthorityPlane.open(lane.build());
            return new Lane(entry, plane, AuthService.start(plane, faces.build()), remote);
        } catch (RuntimeException e) {
            if (plane != null) {
                plane.close();
            }
            if (remote != null) {
                remote.close();
            }
            throw e;
        }
    }

    /** Closes every lane (the errors of all are kept: the first is thrown with the rest suppressed). */
    @Override
    public synchronized void close() {
        RuntimeException failure = null;
        for (String space : List.copyOf(lanes.keySet())) {
            try {
                lanes.get(space).close();
                lanes.remove(space);
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure; // the lanes that did not close stay owned: close() may be called again
        }
    }
}
