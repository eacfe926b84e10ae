package ai.cotal.auth;

import ai.cotal.core.CotalException;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.core.trust.SpaceName;
import ai.cotal.core.trust.SpaceSigner;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.net.ssl.SSLContext;

/**
 * Options of {@link AuthAuthorityPlane#open}, immutable and validated in {@link Builder#build()}:
 * the broker URLs, the space, its state directory (actor ledger, IdP pin), the
 * {@link SecretStore}, the data account's signer ({@code {pub, signingSeed}}), the clock, the
 * liveness oracle (default: {@link ConnzLivenessOracle}), the standing credential lifetime
 * (5 s to 24 h, default 15 min), an optional TLS context, and the write budgets of SPEC §13.20
 * (credential mints, issuances and service-endpoint writes per principal and per space per
 * rolling minute, each 1 to 1,000,000, validated by {@link WriteBudgets}; defaults 60, 30 and 30
 * per principal, 600, 300 and 300 per space).
 */
public final class AuthPlaneOptions {
    /** The standing authority credential lifetime unless set. */
    public static final Duration DEFAULT_STANDING_TTL = Duration.ofMinutes(15);

    private final List<String> servers;
    private final String space;
    private final Path stateDir;
    private final SecretStore secretStore;
    private final SpaceSigner signer;
    private final Clock clock;
    private final Optional<LivenessOracle> livenessOracle;
    private final Duration standingTtl;
    private final Optional<SSLContext> sslContext;
    private final Optional<ServiceEndpoints> serviceEndpoints;
    private final WriteBudgets writeBudgets;

    /** Credential mints a principal may make per rolling minute unless set. */
    public static final int DEFAULT_MINTS_PER_PRINCIPAL = 60;
    /** Credential mints a space may make per rolling minute unless set. */
    public static final int DEFAULT_MINTS_PER_SPACE = 600;
    /** Issuances (manager-caller connects under a new nonce) a principal may make per rolling minute unless set. */
    public static final int DEFAULT_ISSUANCES_PER_PRINCIPAL = 30;
    /** Issuances a space may make per rolling minute unless set. */
    public static final int DEFAULT_ISSUANCES_PER_SPACE = 300;
    /** Service-endpoint writes (owner requests binding a new request id) a principal may make per rolling minute unless set. */
    public static final int DEFAULT_ENDPOINT_WRITES_PER_PRINCIPAL = 30;
    /** Service-endpoint writes a space's owners may make per rolling minute unless set. */
    public static final int DEFAULT_ENDPOINT_WRITES_PER_SPACE = 300;

    private AuthPlaneOptions(Builder b, WriteBudgets writeBudgets) {
        this.writeBudgets = writeBudgets;
        this.servers = List.copyOf(b.servers);
        this.space = b.space;
        this.stateDir = b.stateDir.toAbsolutePath().normalize();
        this.secretStore = b.secretStore;
        this.signer = b.signer;
        this.clock = b.clock;
        this.livenessOracle = Optional.ofNullable(b.livenessOracle);
        this.standingTtl = b.standingTtl;
        this.sslContext = Optional.ofNullable(b.sslContext);
        this.serviceEndpoints = Optional.ofNullable(b.serviceEndpoints);
    }

    /** The service-endpoint setting; empty (the default) hosts no service-endpoint operations. */
    public Optional<ServiceEndpoints> serviceEndpoints() {
        return serviceEndpoints;
    }

    /** Why opening must refuse this plane's service-endpoint setting, or null (SPEC §13.1). */
    public String serviceEndpointsRefusal() {
        return serviceEndpoints.map(ServiceEndpoints::refusal).orElse(null);
    }

    public static Builder builder() {
        return new Builder();
    }

    public List<String> servers() {
        return servers;
    }

    public String space() {
        return space;
    }

    public Path stateDir() {
        return stateDir;
    }

    public SecretStore secretStore() {
        return secretStore;
    }

    public SpaceSigner signer() {
        return signer;
    }

    public Clock clock() {
        return clock;
    }

    /** The oracle; the plane builds a {@link ConnzLivenessOracle} when none was given. */
    public Optional<LivenessOracle> livenessOracle() {
        return livenessOracle;
    }

    public Duration standingTtl() {
        return standingTtl;
    }

    public Optional<SSLContext> sslContext() {
        return sslContext;
    }

    /** Credential-row mints one principal ({@code owner.actor}) may make per rolling minute (SPEC §13.20). */
    public int mintsPerPrincipalPerMinute() {
        return writeBudgets.mintsPerPrincipal();
    }

    /** Credential-row mints the whole space may make per rolling minute. */
    public int mintsPerSpacePerMinute() {
        return writeBudgets.mintsPerSpace();
    }

    /** Issuances (manager-caller connects under a new nonce) one principal may make per rolling minute. */
    public int issuancesPerPrincipalPerMinute() {
        return writeBudgets.issuancesPerPrincipal();
    }

    /** Issuances the whole space may make per rolling minute. */
    public int issuancesPerSpacePerMinute() {
        return writeBudgets.issuancesPerSpace();
    }

    /** Service-endpoint writes (owner requests binding a new request id) one principal may make per rolling minute. */
    public int endpointWritesPerPrincipalPerMinute() {
        return writeBudgets.endpointWritesPerPrincipal();
    }

    /** Service-endpoint writes the space's owners may make together per rolling minute. */
    public int endpointWritesPerSpacePerMinute() {
        return writeBudgets.endpointWritesPerSpace();
    }

    /** All the write budgets of SPEC §13.20. */
    public WriteBudgets writeBudgets() {
        return writeBudgets;
    }

    /** Builds {@link AuthPlaneOptions}; {@link #build()} names the first bad option. */
    public static final class Builder {
        private List<String> servers = List.of();
        private String space;
        private Path stateDir;
        private SecretStore secretStore;
        private SpaceSigner signer;
        private Clock clock = Clock.systemUTC();
        private LivenessOracle livenessOracle;
        private Duration standingTtl = DEFAULT_STANDING_TTL;
        private SSLContext sslContext;
        private ServiceEndpoints serviceEndpoints;
        private int mintsPerPrincipal = DEFAULT_MINTS_PER_PRINCIPAL;
        private int mintsPerSpace = DEFAULT_MINTS_PER_SPACE;
        private int issuancesPerPrincipal = DEFAULT_ISSUANCES_PER_PRINCIPAL;
        private int issuancesPerSpace = DEFAULT_ISSUANCES_PER_SPACE;
        private int endpointWritesPerPrincipal = DEFAULT_ENDPOINT_WRITES_PER_PRINCIPAL;
        private int endpointWritesPerSpace = DEFAULT_ENDPOINT_WRITES_PER_SPACE;

        private Builder() {
        }

        /** All the write budgets at once ({@link WriteBudgets}). */
        public Builder writeBudgets(WriteBudgets budgets) {
            return mintsPerPrincipalPerMinute(budgets.mintsPerPrincipal()).mintsPerSpacePerMinute(budgets.mintsPerSpace())
                    .issuancesPerPrincipalPerMinute(budgets.issuancesPerPrincipal())
                    .issuancesPerSpacePerMinute(budgets.issuancesPerSpace())
                    .endpointWritesPerPrincipalPerMinute(budgets.endpointWritesPerPrincipal())
                    .endpointWritesPerSpacePerMinute(budgets.endpointWritesPerSpace());
        }

        /** Service-endpoint writes per principal per rolling minute (1 to 1,000,000; default 30). */
        public Builder endpointWritesPerPrincipalPerMinute(int limit) {
            this.endpointWritesPerPrincipal = limit;
            return this;
        }

        /** Service-endpoint writes per space per rolling minute (1 to 1,000,000; default 300). */
        public Builder endpointWritesPerSpacePerMinute(int limit) {
            this.endpointWritesPerSpace = limit;
            return this;
        }

        /** Credential-row mints per principal per rolling minute (1 to 1,000,000; default 60). */
        public Builder mintsPerPrincipalPerMinute(int limit) {
            this.mintsPerPrincipal = limit;
            return this;
        }

        /** Credential-row mints per space per rolling minute (1 to 1,000,000; default 600). */
        public Builder mintsPerSpacePerMinute(int limit) {
            this.mintsPerSpace = limit;
            return this;
        }

        /** Issuances per principal per rolling minute (1 to 1,000,000; default 30). */
        public Builder issuancesPerPrincipalPerMinute(int limit) {
            this.issuancesPerPrincipal = limit;
            return this;
        }

        /** Issuances per space per rolling minute (1 to 1,000,000; default 300). */
        public Builder issuancesPerSpacePerMinute(int limit) {
            this.issuancesPerSpace = limit;
            return this;
        }

        public Builder servers(List<String> urls) {
            this.servers = Objects.requireNonNull(urls, "servers");
            return this;
        }

        public Builder server(String url) {
            return servers(List.of(url));
        }

        public Builder space(String space) {
            this.space = space;
            return this;
        }

        /** The space's state directory, e.g. {@code CotalRoot.userAuthStateDir(root, space)}. */
        public Builder stateDir(Path stateDir) {
            this.stateDir = stateDir;
            return this;
        }

        public Builder secretStore(SecretStore store) {
            this.secretStore = store;
            return this;
        }

        /** The data account's public key and signing key ({@code SpaceAuth.strip()}). */
        public Builder signer(SpaceSigner signer) {
            this.signer = signer;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        public Builder livenessOracle(LivenessOracle oracle) {
            this.livenessOracle = oracle;
            return this;
        }

        /** Lifetime of the standing authority credentials (5 s to 24 h); they renew at half-life. */
        public Builder standingTtl(Duration ttl) {
            this.standingTtl = ttl;
            return this;
        }

        /**
         * Hosts the service-endpoint operations ({@code serviceEndpoints: {startup: {kind: "normal"}}}):
         * the plane opens a read-only discovery connection and answers
         * {@link AuthAuthorityPlane#serviceEndpointHost}. Off by default.
         */
        public Builder serviceEndpoints(boolean enabled) {
            this.serviceEndpoints = enabled ? ServiceEndpoints.normal() : null;
            return this;
        }

        /** The full setting ({@code {startup: {kind}}}); null turns service endpoints off. */
        public Builder serviceEndpoints(ServiceEndpoints setting) {
            this.serviceEndpoints = setting;
            return this;
        }

        public Builder sslContext(SSLContext context) {
            this.sslContext = context;
            return this;
        }

        public AuthPlaneOptions build() {
            if (servers.isEmpty() || servers.stream().anyMatch(s -> s == null || s.isBlank())) {
                throw CotalException.badRequest("servers", "at least one broker URL");
            }
            SpaceName.check(space, "space");
            if (stateDir == null) {
                throw CotalException.badRequest("stateDir", "the space's state directory is required");
            }
            if (secretStore == null) {
                throw CotalException.badRequest("secretStore", "is required");
            }
            if (signer == null) {
                throw CotalException.badRequest("signer", "the data account's signer is required");
            }
            if (!signer.space().equals(space)) {
                throw CotalException.badRequest("signer", "belongs to space '" + signer.space() + "'");
            }
            if (clock == null) {
                throw CotalException.badRequest("clock", "is required");
            }
            if (standingTtl == null || standingTtl.compareTo(Duration.ofSeconds(5)) < 0
                    || standingTtl.compareTo(Duration.ofHours(24)) > 0) {
                throw CotalException.badRequest("standingTtl", "must be between 5 s and 24 h");
            }
            WriteBudgets budgets = new WriteBudgets(mintsPerPrincipal, mintsPerSpace, issuancesPerPrincipal,
                    issuancesPerSpace, endpointWritesPerPrincipal, endpointWritesPerSpace); // validates, naming the option
            return new AuthPlaneOptions(this, budgets);
        }
    }
}
