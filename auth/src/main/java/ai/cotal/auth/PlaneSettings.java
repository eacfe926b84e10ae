package ai.cotal.auth;

import ai.cotal.auth.metrics.MeterSink;
import ai.cotal.core.CotalException;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.core.stores.StoreReplicas;
import ai.cotal.core.id.SpaceName;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The settings an authority plane and the stock service that opens one share: the broker URLs,
 * the space, its state directory (actor ledger, IdP pin), the identity root (where the plane's
 * restart identity lives; default the state directory), the {@link SecretStore}, the clock, the
 * liveness oracle (default: every server's {@code CONNZ}, SPEC §13.13), the standing credential lifetime (5 s to
 * 24 h, default 15 min), the service-endpoint setting (off by default), the {@link WriteBudgets}
 * of SPEC §13.20 and the authority stores' {@link StoreReplicas} (default one). Held by
 * {@link AuthPlaneOptions} and {@code AuthServiceOptions} (both {@link PlaneSettingsHolder}s), whose
 * builders extend {@link Builder}:
 * the only way to make one, validated before it exists. Immutable and thread-safe;
 * {@code toString()} never shows the store or the oracle.
 */
public final class PlaneSettings {
    /** A remote manager's standing service credential lifetime unless set (SPEC §14.6). */
    public static final Duration DEFAULT_MANAGER_STANDING_TTL = Duration.ofHours(24);
    private final List<String> servers;
    private final String space;
    private final Path stateDir;
    private final Path identityRoot; // null: the state directory
    private final SecretStore secretStore;
    private final Clock clock;
    private final Optional<LivenessOracle> livenessOracle;
    private final Duration standingTtl;
    private final Duration managerStandingTtl;
    private final Optional<ServiceEndpoints> serviceEndpoints;
    private final WriteBudgets writeBudgets;
    private final StoreReplicas storeReplicas;
    private final LedgerStore ledger;
    private final MeterSink meterSink; // null: nothing is measured
    private final boolean meterSpaceTag;

    private PlaneSettings(Builder<?> b, WriteBudgets writeBudgets) {
        this.servers = List.copyOf(b.servers);
        this.space = b.space;
        this.stateDir = b.stateDir.toAbsolutePath().normalize();
        this.identityRoot = b.identityRoot == null ? null : b.identityRoot.toAbsolutePath().normalize();
        this.secretStore = b.secretStore;
        this.clock = b.clock;
        this.livenessOracle = Optional.ofNullable(b.livenessOracle);
        this.standingTtl = b.standingTtl;
        this.managerStandingTtl = b.managerStandingTtl;
        this.serviceEndpoints = Optional.ofNullable(b.serviceEndpoints);
        this.writeBudgets = writeBudgets;
        this.storeReplicas = b.storeReplicas;
        this.ledger = b.ledger;
        this.meterSink = b.meterSink;
        this.meterSpaceTag = b.meterSpaceTag;
    }

    public List<String> servers() {
        return servers;
    }

    public String space() {
        return space;
    }

    /** Absolute and normalized. */
    public Path stateDir() {
        return stateDir;
    }

    /**
     * Where the plane's restart identity lives ({@code identityRoot}, SPEC §13.12): the directory
     * its registration as service endpoint {@code auth} keeps its identity file under, absolute and
     * normalized; empty (the default) when the identity is the secret store's
     * {@code AuthInstanceIdentity} ({@code space.<hex>/auth-instance.json}).
     */
    public java.util.Optional<Path> identityRoot() {
        return java.util.Optional.ofNullable(identityRoot);
    }

    public SecretStore secretStore() {
        return secretStore;
    }

    public Clock clock() {
        return clock;
    }

    /** The oracle; without one the plane asks every server's {@code CONNZ} (SPEC §13.13). */
    public Optional<LivenessOracle> livenessOracle() {
        return livenessOracle;
    }

    public Duration standingTtl() {
        return standingTtl;
    }

    /**
     * Lifetime of a remote manager's standing service credential (SPEC §14.6; the reference's
     * {@code standingRenewableTtlSeconds}): 5 s to 24 h, default 24 h.
     */
    public Duration managerStandingTtl() {
        return managerStandingTtl;
    }

    /** The service-endpoint setting; empty (the default) hosts no service-endpoint operations. */
    public Optional<ServiceEndpoints> serviceEndpoints() {
        return serviceEndpoints;
    }

    /** All the write budgets of SPEC §13.20. */
    public WriteBudgets writeBudgets() {
        return writeBudgets;
    }

    /** The replica count the plane's open creates or verifies its authority stores with (SPEC §13.12). */
    public StoreReplicas storeReplicas() {
        return storeReplicas;
    }

    /** Where the actor ledger and the IdP pin live (SPEC §13.23; default {@link LedgerStore#files()}). */
    public LedgerStore ledger() {
        return ledger;
    }

    /** Whether an embedder's {@link MeterSink} was given ({@link Builder#meterSink}; SPEC §13.21). */
    public boolean metered() {
        return meterSink != null;
    }

    /** The embedder's sink for the meters of SPEC §13.21; empty: nothing is measured. */
    public Optional<MeterSink> meterSink() {
        return Optional.ofNullable(meterSink);
    }

    /** Whether every meter carries {@code space} (the per-space opt-in, {@link Builder#meterSpaceTag}). */
    public boolean meterSpaceTag() {
        return meterSpaceTag;
    }

    @Override
    public String toString() {
        return "PlaneSettings[servers=" + servers + ", space=" + space + ", stateDir=" + stateDir + ", identityRoot="
                + (identityRoot == null ? "secret store" : identityRoot) + ", standingTtl=" + standingTtl + ", managerStandingTtl="
                + managerStandingTtl + ", serviceEndpoints=" + serviceEndpoints + ", "
                + writeBudgets + ", storeReplicas=" + storeReplicas + ", ledger=" + ledger + ", metered=" + metered() + ", meterSpaceTag="
                + meterSpaceTag + "]";
    }

    /**
     * The setters of the shared settings, inherited by {@link AuthPlaneOptions.Builder} and
     * {@code AuthServiceOptions.Builder}; {@link #buildSettings()} validates them, naming the first
     * bad option.
     *
     * @param <B> the concrete builder, returned by every setter
     */
    public abstract static class Builder<B extends Builder<B>> {
        private List<String> servers = List.of();
        private String space;
        private Path stateDir;
        private Path identityRoot;
        private SecretStore secretStore;
        private Clock clock = Clock.systemUTC();
        private LivenessOracle livenessOracle;
        private Duration standingTtl = AuthPlaneOptions.DEFAULT_STANDING_TTL;
        private Duration managerStandingTtl = DEFAULT_MANAGER_STANDING_TTL;
        private ServiceEndpoints serviceEndpoints;
        private int mintsPerPrincipal;
        private int mintsPerSpace;
        private int issuancesPerPrincipal;
        private int issuancesPerSpace;
        private int endpointWritesPerPrincipal;
        private int endpointWritesPerSpace;
        private StoreReplicas storeReplicas = StoreReplicas.one();
        private LedgerStore ledger = LedgerStore.files();
        private MeterSink meterSink;
        private boolean meterSpaceTag;

        // the defaults go through the setters a subclass inherits; a subclass overrides none of them
        @SuppressWarnings("this-escape")
        protected Builder() {
            writeBudgets(WriteBudgets.defaults());
        }

        @SuppressWarnings("unchecked")
        private B self() {
            return (B) this;
        }

        /** Every shared setting at once, e.g. a service's for the plane it opens. */
        public B settings(PlaneSettings settings) {
            servers(settings.servers).space(settings.space).stateDir(settings.stateDir).identityRoot(settings.identityRoot)
                    .secretStore(settings.secretStore).clock(settings.clock).livenessOracle(settings.livenessOracle.orElse(null))
                    .standingTtl(settings.standingTtl).managerStandingTtl(settings.managerStandingTtl)
                    .serviceEndpoints(settings.serviceEndpoints.orElse(null)).storeReplicas(settings.storeReplicas)
                    .ledger(settings.ledger).meterSink(settings.meterSink).meterSpaceTag(settings.meterSpaceTag);
            return writeBudgets(settings.writeBudgets);
        }

        public B servers(List<String> urls) {
            this.servers = urls;
            return self();
        }

        public B server(String url) {
            return servers(List.of(url));
        }

        public B space(String space) {
            this.space = space;
            return self();
        }

        /** The space's state directory, e.g. {@code CotalRoot.userAuthStateDir(root, space)}. */
        public B stateDir(Path stateDir) {
            this.stateDir = stateDir;
            return self();
        }

        /**
         * Where the plane's restart identity lives: the directory under which its registration as
         * service endpoint {@code auth} (SPEC §14.2) keeps {@code {instanceId, serveIdentity}}
         * so that a restarted plane is the same instance (a command-line tool passes its
         * workspace root, a hosted plane its state directory). Unset (or null), it is the
         * {@link #stateDir state directory}, which follows a later {@code stateDir} call. Must not
         * be empty, and must be a directory when it exists (it may be missing).
         */
        public B identityRoot(Path identityRoot) {
            this.identityRoot = identityRoot;
            return self();
        }

        public B secretStore(SecretStore store) {
            this.secretStore = store;
            return self();
        }

        public B clock(Clock clock) {
            this.clock = clock;
            return self();
        }

        public B livenessOracle(LivenessOracle oracle) {
            this.livenessOracle = oracle;
            return self();
        }

        /**
         * Lifetime of the plane's standing credentials (5 s to 24 h, default 15 min); they renew at
         * half-life. The broker drops a standing connection when its JWT expires; it reconnects at
         * once with the renewed one.
         */
        public B standingTtl(Duration ttl) {
            this.standingTtl = ttl;
            return self();
        }

        /**
         * Lifetime of the standing service credential a remote manager gets from
         * {@code /manager-service-authority} (SPEC §14.6): 5 s to 24 h, default 24 h. The manager
         * renews at 75% of it; every renewal re-derives its surface from its registration.
         */
        public B managerStandingTtl(Duration ttl) {
            this.managerStandingTtl = ttl;
            return self();
        }

        /**
         * Hosts the service-endpoint operations ({@code serviceEndpoints: {startup: {kind: "normal"}}}):
         * the plane opens a read-only discovery connection and answers
         * {@link AuthAuthorityPlane#serviceEndpoints()}. Off by default.
         */
        public B serviceEndpoints(boolean enabled) {
            return serviceEndpoints(enabled ? ServiceEndpoints.normal() : null);
        }

        /** The full setting ({@code {startup: {kind}}}); null turns service endpoints off. */
        public B serviceEndpoints(ServiceEndpoints setting) {
            this.serviceEndpoints = setting;
            return self();
        }

        /**
         * The authority stores' replica count (SPEC §13.12; default {@link StoreReplicas#one()}, {@code of(3)}
         * on a cluster of three or more): a store with another count refuses the open as drift.
         */
        public B storeReplicas(StoreReplicas replicas) {
            this.storeReplicas = replicas;
            return self();
        }

        /**
         * Where the actor ledger and the IdP pin live (SPEC §13.23; default {@link LedgerStore#files()}):
         * the open refuses a placement other than the space's marker records.
         */
        public B ledger(LedgerStore placement) {
            this.ledger = placement;
            return self();
        }

        /**
         * Where the plane, and the callout and HTTP faces of a stock service, report their meters
         * (SPEC §13.21: callout decisions, latencies, invocations, budget refusals, plane state,
         * turnovers, store fill, HTTP connections); for Micrometer,
         * {@code MicrometerSink.of(registry)} ({@code ai.cotal.auth.micrometer}). Unset or null
         * (the default): nothing is measured and no metrics library is needed.
         */
        public B meterSink(MeterSink sink) {
            this.meterSink = sink;
            return self();
        }

        /**
         * The per-space opt-in (default false): every meter of this plane (and service) carries the
         * tag {@code space} with the space's name. Without it no meter names a space. Needs a
         * {@link #meterSink}.
         */
        public B meterSpaceTag(boolean tag) {
            this.meterSpaceTag = tag;
            return self();
        }

        /** All the write budgets at once (default {@link WriteBudgets#defaults()}). */
        public B writeBudgets(WriteBudgets budgets) {
            return mintsPerPrincipalPerMinute(budgets.mintsPerPrincipal()).mintsPerSpacePerMinute(budgets.mintsPerSpace())
                    .issuancesPerPrincipalPerMinute(budgets.issuancesPerPrincipal())
                    .issuancesPerSpacePerMinute(budgets.issuancesPerSpace())
                    .endpointWritesPerPrincipalPerMinute(budgets.endpointWritesPerPrincipal())
                    .endpointWritesPerSpacePerMinute(budgets.endpointWritesPerSpace());
        }

        /** Credential-row mints per principal per rolling minute (1 to 1,000,000; default 60). */
        public B mintsPerPrincipalPerMinute(int limit) {
            this.mintsPerPrincipal = limit;
            return self();
        }

        /** Credential-row mints per space per rolling minute (1 to 1,000,000; default 600). */
        public B mintsPerSpacePerMinute(int limit) {
            this.mintsPerSpace = limit;
            return self();
        }

        /** Issuances (manager-caller connects under a new nonce) per principal per rolling minute (1 to 1,000,000; 30). */
        public B issuancesPerPrincipalPerMinute(int limit) {
            this.issuancesPerPrincipal = limit;
            return self();
        }

        /** Issuances per space per rolling minute (1 to 1,000,000; default 300). */
        public B issuancesPerSpacePerMinute(int limit) {
            this.issuancesPerSpace = limit;
            return self();
        }

        /** Service-endpoint writes (owner requests binding a new request id) per principal per minute (1 to 1,000,000; 30). */
        public B endpointWritesPerPrincipalPerMinute(int limit) {
            this.endpointWritesPerPrincipal = limit;
            return self();
        }

        /** Service-endpoint writes per space per rolling minute (1 to 1,000,000; default 300). */
        public B endpointWritesPerSpacePerMinute(int limit) {
            this.endpointWritesPerSpace = limit;
            return self();
        }

        /** Validates the shared settings, naming the first bad option; the outer {@code build()} calls it first. */
        protected final PlaneSettings buildSettings() {
            NatsConnector.checkServers(servers);
            SpaceName.of(space, "space");
            if (stateDir == null) {
                throw CotalException.badRequest("stateDir", "the space's state directory is required");
            }
            if (!stateDir.isAbsolute()) {
                throw CotalException.badRequest("stateDir", "must be an absolute path (state never lands in the working directory)");
            }
            if (identityRoot != null && identityRoot.toString().isEmpty()) {
                throw CotalException.badRequest("identityRoot", "must name a directory (the path is empty)");
            }
            if (identityRoot != null && !identityRoot.isAbsolute()) {
                throw CotalException.badRequest("identityRoot", "must be an absolute path (state never lands in the working directory)");
            }
            if (identityRoot != null && Files.exists(identityRoot) && !Files.isDirectory(identityRoot)) {
                throw CotalException.badRequest("identityRoot", "exists and is not a directory");
            }
            if (secretStore == null) {
                throw CotalException.badRequest("secretStore", "is required");
            }
            if (clock == null) {
                throw CotalException.badRequest("clock", "is required");
            }
            if (standingTtl == null || standingTtl.compareTo(Duration.ofSeconds(5)) < 0
                    || standingTtl.compareTo(Duration.ofHours(24)) > 0) {
                throw CotalException.badRequest("standingTtl", "must be between 5 s and 24 h");
            }
            if (managerStandingTtl == null || managerStandingTtl.compareTo(Duration.ofSeconds(5)) < 0
                    || managerStandingTtl.compareTo(Duration.ofHours(24)) > 0) {
                throw CotalException.badRequest("managerStandingTtl", "must be between 5 s and 24 h");
            }
            if (storeReplicas == null) {
                throw CotalException.badRequest("storeReplicas", "is required (StoreReplicas.one() by default)");
            }
            if (ledger == null) {
                throw CotalException.badRequest("ledger", "is required (LedgerStore.files() by default)");
            }
            ai.cotal.auth.internal.metrics.AuthMetrics.check(meterSink, meterSpaceTag);
            WriteBudgets budgets = new WriteBudgets(mintsPerPrincipal, mintsPerSpace, issuancesPerPrincipal,
                    issuancesPerSpace, endpointWritesPerPrincipal, endpointWritesPerSpace); // validates, naming the option
            return new PlaneSettings(this, budgets);
        }
    }
}
