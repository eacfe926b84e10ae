package ai.cotal.auth.service;

import ai.cotal.auth.LivenessOracle;
import ai.cotal.auth.ServiceEndpoints;
import ai.cotal.auth.exchange.JwksSource;
import ai.cotal.core.CotalException;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.core.trust.SpaceName;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;

/**
 * What {@link AuthService#start} ({@code startAuthService}) needs: the broker, the space, its
 * state directory and secret store, and the optional parts (service endpoints, ports, a public
 * face, an IdP key source, a liveness oracle). Validated at build, before anything is taken.
 */
public record AuthServiceOptions(List<String> servers, String space, Path stateDir, SecretStore secretStore,
        Optional<ServiceEndpoints> serviceEndpoints, int loopbackPort, Optional<InetSocketAddress> publicAddress,
        Optional<JwksSource> jwks, Optional<LivenessOracle> livenessOracle, Clock clock,
        Optional<java.time.Duration> standingTtl, Optional<java.net.InetAddress> trustedProxy,
        Optional<ai.cotal.core.secrets.SecretStoreIdentity> storeIdentity, Optional<String> dataAccount,
        Optional<ai.cotal.auth.WriteBudgets> writeBudgets) {

    public static Builder builder() {
        return new Builder();
    }

    /** Builder; {@link #build()} validates. */
    public static final class Builder {
        private List<String> servers = List.of();
        private String space;
        private Path stateDir;
        private SecretStore secretStore;
        private ServiceEndpoints serviceEndpoints;
        private int loopbackPort;
        private InetSocketAddress publicAddress;
        private JwksSource jwks;
        private LivenessOracle livenessOracle;
        private Clock clock = Clock.systemUTC();
        private java.time.Duration standingTtl;
        private java.net.InetAddress trustedProxy;
        private ai.cotal.core.secrets.SecretStoreIdentity storeIdentity;
        private String dataAccount;
        private ai.cotal.auth.WriteBudgets writeBudgets;

        private Builder() {
        }

        public Builder servers(List<String> urls) {
            this.servers = List.copyOf(urls);
            return this;
        }

        public Builder server(String url) {
            return servers(List.of(url));
        }

        public Builder space(String space) {
            this.space = space;
            return this;
        }

        public Builder stateDir(Path dir) {
            this.stateDir = dir;
            return this;
        }

        public Builder secretStore(SecretStore store) {
            this.secretStore = store;
            return this;
        }

        /** {@code serviceEndpoints: {startup: {kind}}}; off when never set. */
        public Builder serviceEndpoints(ServiceEndpoints setting) {
            this.serviceEndpoints = setting;
            return this;
        }

        /** The loopback face's port (0: any free port; the URL is in {@code auth-service.json}). */
        public Builder loopbackPort(int port) {
            this.loopbackPort = port;
            return this;
        }

        public Builder publicAddress(InetSocketAddress address) {
            this.publicAddress = address;
            return this;
        }

        public Builder jwks(JwksSource source) {
            this.jwks = source;
            return this;
        }

        public Builder livenessOracle(LivenessOracle oracle) {
            this.livenessOracle = oracle;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /**
         * The plane's standing credential lifetime (5 s to 24 h, default 15 min). The broker drops a
         * standing connection when its JWT expires; it reconnects at once with the renewed one.
         */
        public Builder standingTtl(java.time.Duration ttl) {
            this.standingTtl = ttl;
            return this;
        }

        /**
         * The TLS proxy in front of the public face: only its connections have their client taken
         * from {@code X-Forwarded-For} (SPEC §13.17, {@code ExchangeOptions.Builder#trustedProxy}).
         */
        public Builder trustedProxy(java.net.InetAddress proxy) {
            this.trustedProxy = proxy;
            return this;
        }

        /**
         * The identity the secret store must declare ({@link SecretStore#identity()}); when set,
         * {@link AuthService#start} refuses a store that declares another one, or none, before it
         * takes anything: a misplaced store would otherwise serve other owners' keys or none.
         */
        public Builder storeIdentity(ai.cotal.core.secrets.SecretStoreIdentity identity) {
            this.storeIdentity = identity;
            return this;
        }

        /**
         * The data account this service is for (the hosting context's account public key); when
         * set, {@link AuthService#start} refuses service keys that sign for another account.
         */
        public Builder dataAccount(String accountPublicKey) {
            this.dataAccount = accountPublicKey;
            return this;
        }

        /**
         * How much one principal and the space may make the plane write per minute (SPEC §13.20;
         * default {@link ai.cotal.auth.WriteBudgets#defaults()}).
         */
        public Builder writeBudgets(ai.cotal.auth.WriteBudgets budgets) {
            this.writeBudgets = budgets;
            return this;
        }

        public AuthServiceOptions build() {
            if (servers.isEmpty()) {
                throw CotalException.badRequest("servers", "at least one broker URL");
            }
            SpaceName.check(space, "space");
            if (stateDir == null) {
                throw CotalException.badRequest("stateDir", "is required");
            }
            if (secretStore == null) {
                throw CotalException.badRequest("secretStore", "is required");
            }
            if (loopbackPort < 0 || loopbackPort > 65535) {
                throw CotalException.badRequest("loopbackPort", "must be 0 to 65535");
            }
            if (clock == null) {
                throw CotalException.badRequest("clock", "is required");
            }
            if (standingTtl != null && (standingTtl.compareTo(java.time.Duration.ofSeconds(5)) < 0
                    || standingTtl.compareTo(java.time.Duration.ofHours(24)) > 0)) {
                throw CotalException.badRequest("standingTtl", "must be between 5 s and 24 h");
            }
            if (dataAccount != null && !ai.cotal.core.internal.keys.NKeyCodec.isPublic(dataAccount,
                    ai.cotal.core.keys.KeyType.ACCOUNT)) {
                throw CotalException.badRequest("dataAccount", "must be an account public key (A...)");
            }
            return new AuthServiceOptions(servers, space, stateDir.toAbsolutePath().normalize(), secretStore,
                    Optional.ofNullable(serviceEndpoints), loopbackPort, Optional.ofNullable(publicAddress),
                    Optional.ofNullable(jwks), Optional.ofNullable(livenessOracle), clock, Optional.ofNullable(standingTtl),
                    Optional.ofNullable(trustedProxy), Optional.ofNullable(storeIdentity), Optional.ofNullable(dataAccount),
                    Optional.ofNullable(writeBudgets));
        }
    }
}
