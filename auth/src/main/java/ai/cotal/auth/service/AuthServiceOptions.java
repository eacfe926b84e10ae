package ai.cotal.auth.service;

import ai.cotal.auth.GrantPolicy;
import ai.cotal.auth.IdpPin;
import ai.cotal.auth.exchange.ExchangeOptions;
import ai.cotal.auth.exchange.FaceLimits;
import ai.cotal.auth.exchange.JoinBundle;
import ai.cotal.auth.exchange.JwksSource;
import ai.cotal.core.CotalException;
import ai.cotal.core.internal.keys.NKeyCodec;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.core.secrets.SecretStoreIdentity;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;

/**
 * What {@link AuthService#start} needs beside the plane it runs on: the faces' ports and bounds
 * (a loopback port, an optional public face and its TLS proxy, the faces' {@link
 * FaceLimits}), an IdP key source or an OpenID Connect provider to pin, the join
 * bundle's parts, and the checks made before anything is taken (the expected store and data
 * account). The broker, space, state directory, store, clock, signer, meter sink and callout
 * account are the plane's ({@link ai.cotal.auth.AuthPlaneOptions}). Validated at build, before
 * anything is taken. Immutable and thread-safe.
 */
public final class AuthServiceOptions {
    private final int loopbackPort;
    private final Optional<InetSocketAddress> publicAddress;
    private final Optional<JwksSource> jwks;
    private final Optional<InetAddress> trustedProxy;
    private final Optional<SecretStoreIdentity> storeIdentity;
    private final Optional<String> dataAccount;
    private final Optional<String> advertisedServer;
    private final Optional<String> agentProvisioningUrl;
    private final Optional<Oidc> oidc;
    private final int jwksFetchesPerMinute;
    private final FaceLimits limits;
    private final Optional<GrantPolicy> grantPolicy;

    /**
     * An OpenID Connect provider the service pins at start (SPEC §13.14, §13.18).
     *
     * @param issuer the provider's exact issuer URL
     * @param clientId the client id tokens must name in {@code aud}
     * @param algorithms the accepted JWS algorithms; empty: those the provider advertises
     */
    public record Oidc(String issuer, String clientId, List<String> algorithms) {
        /** Copies the algorithms. */
        public Oidc {
            algorithms = List.copyOf(algorithms);
        }
    }

    private AuthServiceOptions(Builder b) {
        this.loopbackPort = b.loopbackPort;
        this.publicAddress = Optional.ofNullable(b.publicAddress);
        this.jwks = Optional.ofNullable(b.jwks);
        this.trustedProxy = Optional.ofNullable(b.trustedProxy);
        this.storeIdentity = Optional.ofNullable(b.storeIdentity);
        this.dataAccount = Optional.ofNullable(b.dataAccount);
        this.advertisedServer = Optional.ofNullable(b.advertisedServer);
        this.agentProvisioningUrl = Optional.ofNullable(b.agentProvisioningUrl);
        this.oidc = Optional.ofNullable(b.oidc);
        this.jwksFetchesPerMinute = b.jwksFetchesPerMinute;
        this.limits = b.limits;
        this.grantPolicy = Optional.ofNullable(b.grantPolicy);
    }

    public static Builder builder() {
        return new Builder();
    }

    public int loopbackPort() {
        return loopbackPort;
    }

    public Optional<InetSocketAddress> publicAddress() {
        return publicAddress;
    }

    public Optional<JwksSource> jwks() {
        return jwks;
    }

    public Optional<InetAddress> trustedProxy() {
        return trustedProxy;
    }

    public Optional<SecretStoreIdentity> storeIdentity() {
        return storeIdentity;
    }

    public Optional<String> dataAccount() {
        return dataAccount;
    }

    /** The broker URL the join bundle advertises (SPEC §13.17); default the first of the servers. */
    public Optional<String> advertisedServer() {
        return advertisedServer;
    }

    /** The agent provisioning URL the join bundle carries. */
    public Optional<String> agentProvisioningUrl() {
        return agentProvisioningUrl;
    }

    /** The OpenID Connect provider pinned at start, if any. */
    public Optional<Oidc> oidc() {
        return oidc;
    }

    /** The most JWKS fetches an oidc pin's keys make in a rolling minute (SPEC §13.17). */
    public int jwksFetchesPerMinute() {
        return jwksFetchesPerMinute;
    }

    /** The bounds of each face. */
    public FaceLimits limits() {
        return limits;
    }

    /** The grant policy a person's exchange applies (SPEC §13.18), if any. */
    public Optional<GrantPolicy> grantPolicy() {
        return grantPolicy;
    }

    @Override
    public String toString() {
        return "AuthServiceOptions[loopbackPort=" + loopbackPort + ", publicAddress="
                + publicAddress + ", trustedProxy=" + trustedProxy + ", storeIdentity=" + storeIdentity
                + ", dataAccount=" + dataAccount + ", advertisedServer=" + advertisedServer + ", agentProvisioningUrl="
                + agentProvisioningUrl + ", oidc=" + oidc + ", jwksFetchesPerMinute=" + jwksFetchesPerMinute + ", " + limits
                + ", grantPolicyRules=" + grantPolicy.map(p -> p.rules().size()).orElse(0) + "]";
    }

    /** Builder; {@link #build()} validates, naming the first bad option. */
    public static final class Builder {
        private int loopbackPort;
        private InetSocketAddress publicAddress;
        private JwksSource jwks;
        private InetAddress trustedProxy;
        private SecretStoreIdentity storeIdentity;
        private String dataAccount;
        private String advertisedServer;
        private String agentProvisioningUrl;
        private Oidc oidc;
        private int jwksFetchesPerMinute = ExchangeOptions.DEFAULT_JWKS_FETCHES_PER_MINUTE;
        private FaceLimits limits = FaceLimits.DEFAULT;
        private GrantPolicy grantPolicy;

        private Builder() {
        }

        /**
         * The grant policy (SPEC §13.18): a person whose verified ID token matches a rule is
         * granted that rule's interactive row at its first exchange, re-granted (a fresh lifecycle
         * uid) when the rule's grant changed, and revoked and refused at the first exchange after
         * it no longer matches. Rows granted by hand are never touched. Null: no policy (a row the
         * policy granted earlier is then revoked at its next exchange). Build one with
         * {@link GrantPolicy#parse}, which refuses a bad policy naming the field.
         */
        public Builder grantPolicy(GrantPolicy policy) {
            this.grantPolicy = policy;
            return this;
        }

        /** The bounds of each face ({@link FaceLimits#DEFAULT} unless set). */
        public Builder limits(FaceLimits limits) {
            this.limits = limits;
            return this;
        }

        /**
         * Pins the OpenID Connect provider {@code issuer} with the client id {@code clientId} at
         * start (its discovery document is read once, at the first pin); {@code algorithms} empty
         * means the accepted ones it advertises. A space pinned to another provider refuses the
         * start.
         */
        public Builder oidc(String issuer, String clientId, List<String> algorithms) {
            this.oidc = new Oidc(issuer, clientId, algorithms == null ? List.of() : algorithms);
            return this;
        }

        /** The most JWKS fetches an oidc pin's keys make in a rolling minute, 1 to 60 (default 6). */
        public Builder jwksFetchesPerMinute(int fetches) {
            this.jwksFetchesPerMinute = fetches;
            return this;
        }

        /**
         * The broker URL the public face's join bundle advertises ({@code nats}, {@code tls},
         * {@code ws} or {@code wss}; a broker that requires TLS is advertised as {@code tls} or
         * {@code wss}); default the plane's first server. Needs {@link #publicAddress}.
         */
        public Builder advertisedServer(String url) {
            this.advertisedServer = url;
            return this;
        }

        /** An {@code https} URL where agents are provisioned, carried by the join bundle. Needs {@link #publicAddress}. */
        public Builder agentProvisioningUrl(String url) {
            this.agentProvisioningUrl = url;
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

        /**
         * The TLS proxy in front of the public face: only its connections have their client taken
         * from {@code X-Forwarded-For} (SPEC §13.17, {@code ExchangeOptions.Builder#trustedProxy}).
         */
        public Builder trustedProxy(InetAddress proxy) {
            this.trustedProxy = proxy;
            return this;
        }

        /**
         * The identity the secret store must declare ({@link SecretStore#identity()}); when set,
         * {@link AuthService#start} refuses a store that declares another one, or none, before it
         * takes anything: a misplaced store would otherwise serve other owners' keys or none.
         */
        public Builder storeIdentity(SecretStoreIdentity identity) {
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

        public AuthServiceOptions build() {
            if (limits == null) {
                throw CotalException.badRequest("limits", "is required");
            }
            if (loopbackPort < 0 || loopbackPort > 65535) {
                throw CotalException.badRequest("loopbackPort", "must be 0 to 65535");
            }
            if (dataAccount != null && !NKeyCodec.isPublic(dataAccount, KeyType.ACCOUNT)) {
                throw CotalException.badRequest("dataAccount", "must be an account public key (A...)");
            }
            JoinBundle.checkOptions(advertisedServer, agentProvisioningUrl, publicAddress != null);
            if (oidc != null) {
                IdpPin.checkOidc(oidc.issuer(), oidc.clientId(), oidc.algorithms());
            }
            ExchangeOptions.checkJwksFetchesPerMinute(jwksFetchesPerMinute);
            return new AuthServiceOptions(this);
        }
    }
}
