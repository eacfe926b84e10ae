package ai.cotal.auth.exchange;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.GrantPolicy;
import ai.cotal.auth.internal.metrics.AuthMetrics;
import ai.cotal.auth.metrics.MeterSink;
import ai.cotal.core.CotalException;
import ai.cotal.core.creds.Creds;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;

/**
 * Options of {@link TokenExchange#start}, immutable and validated in {@link Builder#build()}.
 * The loopback face always binds {@code 127.0.0.1} (port 0 by default) and requires the
 * capability written to {@code <stateDir>/auth-service.json}; the public face is optional and
 * binds where the host says (put a TLS proxy in front of it, named by {@code trustedProxy}).
 * Each face runs on its own bounded server ({@link FaceLimits}, SPEC §13.17). The loopback
 * {@code /health} reports the plane's callout responder when the plane answers the callout;
 * optional: a meter sink (SPEC §13.21).
 * Thread-safe.
 */
public final class ExchangeOptions {
    private final AuthAuthorityPlane plane;
    private final Path stateDir;
    private final int loopbackPort;
    private final Optional<InetSocketAddress> publicAddress;
    private final JwksSource jwks;
    private final int jwksFetchesPerMinute;
    private final Clock clock;
    private final FaceLimits limits;
    private final Optional<InetAddress> trustedProxy;
    private final Optional<String> advertisedServer;
    private final Optional<String> agentProvisioningUrl;
    private final Optional<String> meshServer;
    private final Optional<Creds> sentinelCreds;
    private final AuthMetrics metrics;
    private final Optional<GrantPolicy> grantPolicy;

    private ExchangeOptions(Builder b, JwksSource jwks) {
        this.plane = b.plane;
        this.stateDir = b.stateDir;
        this.loopbackPort = b.loopbackPort;
        this.publicAddress = Optional.ofNullable(b.publicAddress);
        this.jwks = jwks;
        this.jwksFetchesPerMinute = b.jwksFetchesPerMinute;
        this.clock = b.clock;
        this.limits = b.limits;
        this.trustedProxy = Optional.ofNullable(b.trustedProxy);
        this.advertisedServer = Optional.ofNullable(b.advertisedServer);
        this.agentProvisioningUrl = Optional.ofNullable(b.agentProvisioningUrl);
        this.meshServer = Optional.ofNullable(b.meshServer);
        this.sentinelCreds = Optional.ofNullable(b.sentinelCreds);
        this.metrics = AuthMetrics.of(b.meterSink, b.meterSpaceTag, b.plane.space());
        this.grantPolicy = Optional.ofNullable(b.grantPolicy);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The default of {@link Builder#jwksFetchesPerMinute}. */
    public static final int DEFAULT_JWKS_FETCHES_PER_MINUTE = 6;

    /** {@code bad-request} naming {@code jwksFetchesPerMinute} unless it is 1 to 60. */
    public static void checkJwksFetchesPerMinute(int fetches) {
        if (fetches < 1 || fetches > 60) {
            throw CotalException.badRequest("jwksFetchesPerMinute", "must be 1 to 60");
        }
    }

    public AuthAuthorityPlane plane() {
        return plane;
    }

    public Path stateDir() {
        return stateDir;
    }

    public int loopbackPort() {
        return loopbackPort;
    }

    public Optional<InetSocketAddress> publicAddress() {
        return publicAddress;
    }

    public JwksSource jwks() {
        return jwks;
    }

    /** The most JWKS fetches an oidc pin's keys make in a rolling minute (SPEC §13.17). */
    public int jwksFetchesPerMinute() {
        return jwksFetchesPerMinute;
    }

    public Clock clock() {
        return clock;
    }

    /** The bounds of each face. */
    public FaceLimits limits() {
        return limits;
    }

    public Optional<InetAddress> trustedProxy() {
        return trustedProxy;
    }

    /** The broker URL the join bundle advertises instead of the service's own (SPEC §13.17). */
    public Optional<String> advertisedServer() {
        return advertisedServer;
    }

    /** The agent provisioning URL the join bundle carries, when set. */
    public Optional<String> agentProvisioningUrl() {
        return agentProvisioningUrl;
    }

    /** The bundle's broker URL: {@code advertisedServer}, else the service's broker; empty without a bundle. */
    Optional<String> bundleServer() {
        return advertisedServer.isPresent() ? advertisedServer : meshServer;
    }

    /** The sentinel credential the bundle carries; empty when the exchange serves no bundle. */
    Optional<Creds> sentinelCreds() {
        return sentinelCreds;
    }

    /** The grant policy a human exchange applies (SPEC §13.18); empty: only the ledger's rows. */
    public Optional<GrantPolicy> grantPolicy() {
        return grantPolicy;
    }

    /** Where the faces' meters go (SPEC §13.21). */
    AuthMetrics metrics() {
        return metrics;
    }

    @Override
    public String toString() {
        return "ExchangeOptions[stateDir=" + stateDir + ", loopbackPort=" + loopbackPort + ", publicAddress="
                + publicAddress + ", " + limits + ", trustedProxy=" + trustedProxy + ", advertisedServer=" + advertisedServer
                + ", agentProvisioningUrl=" + agentProvisioningUrl + ", bundle=" + sentinelCreds.isPresent() + ", metered="
                + (metrics != AuthMetrics.NONE) + "]";
    }

    /** Builds {@link ExchangeOptions}. */
    public static final class Builder {
        private AuthAuthorityPlane plane;
        private Path stateDir;
        private int loopbackPort;
        private InetSocketAddress publicAddress;
        private JwksSource jwks;
        private int jwksFetchesPerMinute = DEFAULT_JWKS_FETCHES_PER_MINUTE;
        private Clock clock = Clock.systemUTC();
        private FaceLimits limits = FaceLimits.DEFAULT;
        private InetAddress trustedProxy;
        private String advertisedServer;
        private String agentProvisioningUrl;
        private String meshServer;
        private Creds sentinelCreds;
        private MeterSink meterSink;
        private boolean meterSpaceTag;
        private GrantPolicy grantPolicy;

        private Builder() {
        }

        /**
         * The grant policy (SPEC §13.18): at a human exchange, a subject whose claims match a rule
         * is granted (or re-granted) that rule's interactive row, and a policy row whose subject no
         * longer matches is revoked and refused. Null: none (a policy row is then revoked at its
         * next exchange).
         */
        public Builder grantPolicy(GrantPolicy policy) {
            this.grantPolicy = policy;
            return this;
        }

        /**
         * The join bundle (public face, {@code GET /.well-known/cotal-mesh}): the broker URL the
         * service connects to and the space's sentinel credential (public by design: it can only
         * reach the auth callout). Without it the route answers 404.
         */
        public Builder mesh(String server, Creds sentinel) {
            this.meshServer = server;
            this.sentinelCreds = sentinel;
            return this;
        }

        /** The broker URL the bundle advertises ({@code nats}, {@code tls}, {@code ws} or {@code wss}); needs the public face. */
        public Builder advertisedServer(String url) {
            this.advertisedServer = url;
            return this;
        }

        /** The agent provisioning URL ({@code https}) the bundle carries; needs the public face. */
        public Builder agentProvisioningUrl(String url) {
            this.agentProvisioningUrl = url;
            return this;
        }

        public Builder plane(AuthAuthorityPlane plane) {
            this.plane = plane;
            return this;
        }

        /** Where {@code auth-service.json} (URL and capability, 0600) is written. */
        public Builder stateDir(Path stateDir) {
            this.stateDir = stateDir;
            return this;
        }

        public Builder loopbackPort(int port) {
            this.loopbackPort = port;
            return this;
        }

        /** Also serve the public face at this address. */
        public Builder publicAddress(InetSocketAddress address) {
            this.publicAddress = address;
            return this;
        }

        /** The IdP key source (default: {@link HttpJwksSource}). */
        public Builder jwks(JwksSource jwks) {
            this.jwks = jwks;
            return this;
        }

        /** The most JWKS fetches an oidc pin's keys make in a rolling minute, 1 to 60 (default 6). */
        public Builder jwksFetchesPerMinute(int fetches) {
            this.jwksFetchesPerMinute = fetches;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /** The bounds of each face ({@link FaceLimits#DEFAULT} unless set). */
        public Builder limits(FaceLimits limits) {
            this.limits = limits;
            return this;
        }

        /**
         * The TLS proxy in front of the public face (optional): only for connections from this
         * address is the client taken from {@code X-Forwarded-For} (the right-most hop that is not
         * the proxy); otherwise the header is ignored.
         */
        public Builder trustedProxy(InetAddress proxy) {
            this.trustedProxy = proxy;
            return this;
        }

        /**
         * Where the faces report their meters (SPEC §13.21): their answers by route and status, the
         * exchange's latency, throttled POSTs, connections and requests in flight. Unset or null:
         * nothing is measured.
         */
        public Builder meterSink(MeterSink sink) {
            this.meterSink = sink;
            return this;
        }

        /** The per-space opt-in: every meter carries {@code space} (default false; needs a sink). */
        public Builder meterSpaceTag(boolean tag) {
            this.meterSpaceTag = tag;
            return this;
        }

        public ExchangeOptions build() {
            if (plane == null) {
                throw CotalException.badRequest("plane", "an open authority plane is required");
            }
            if (stateDir == null) {
                throw CotalException.badRequest("stateDir", "is required (the capability file lives there)");
            }
            if (!stateDir.isAbsolute()) {
                throw CotalException.badRequest("stateDir", "must be an absolute path (state never lands in the working directory)");
            }
            if (loopbackPort < 0 || loopbackPort > 65535) {
                throw CotalException.badRequest("loopbackPort", "must be 0 to 65535");
            }
            if (limits == null) {
                throw CotalException.badRequest("limits", "is required");
            }
            if (clock == null) {
                throw CotalException.badRequest("clock", "is required");
            }
            checkJwksFetchesPerMinute(jwksFetchesPerMinute);
            AuthMetrics.check(meterSink, meterSpaceTag);
            JoinBundle.checkOptions(advertisedServer, agentProvisioningUrl, publicAddress != null);
            if ((meshServer == null) != (sentinelCreds == null)) {
                throw CotalException.badRequest(meshServer == null ? "mesh.server" : "mesh.sentinel",
                        "the bundle needs both the broker URL and the sentinel credential");
            }
            return new ExchangeOptions(this, jwks != null ? jwks : new HttpJwksSource(clock));
        }
    }
}
