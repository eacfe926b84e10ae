package ai.cotal.auth;

import ai.cotal.core.CotalException;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceSigner;
import java.time.Duration;
import java.util.Optional;
import javax.net.ssl.SSLContext;

/**
 * Options of {@link AuthAuthorityPlane#open}, immutable and validated in {@link Builder#build()}:
 * the {@link PlaneSettings} (broker URLs, space, state directory, identity root,
 * {@link SecretStore}, clock, liveness oracle, standing credential lifetime, service endpoints,
 * the write budgets of SPEC §13.20), the data account's signer ({@code {pub, signingSeed}}), the
 * space's callout account when the plane answers the auth callout itself, and an optional TLS
 * context.
 * Thread-safe; {@code toString()} shows the signer's public key only.
 */
public final class AuthPlaneOptions implements PlaneSettingsHolder {
    /** The standing authority credential lifetime unless set. */
    public static final Duration DEFAULT_STANDING_TTL = Duration.ofMinutes(15);
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

    private final PlaneSettings settings;
    private final SpaceSigner signer;
    private final Optional<SSLContext> sslContext;
    private final Optional<CalloutAuth> callout;

    private AuthPlaneOptions(PlaneSettings settings, Builder b) {
        this.settings = settings;
        this.signer = b.signer;
        this.sslContext = Optional.ofNullable(b.sslContext);
        this.callout = Optional.ofNullable(b.callout);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The settings this plane shares with the stock service. */
    @Override
    public PlaneSettings settings() {
        return settings;
    }

    /** Why opening must refuse this plane's service-endpoint setting, or null (SPEC §13.1). */
    public String serviceEndpointsRefusal() {
        return settings.serviceEndpoints().map(ServiceEndpoints::refusal).orElse(null);
    }

    public SpaceSigner signer() {
        return signer;
    }

    public Optional<SSLContext> sslContext() {
        return sslContext;
    }

    /** The callout account the plane answers the space's auth callout with; empty when it does not answer it. */
    public Optional<CalloutAuth> callout() {
        return callout;
    }

    /** Credential-row mints one principal ({@code owner.actor}) may make per rolling minute (SPEC §13.20). */
    public int mintsPerPrincipalPerMinute() {
        return settings.writeBudgets().mintsPerPrincipal();
    }

    /** Credential-row mints the whole space may make per rolling minute. */
    public int mintsPerSpacePerMinute() {
        return settings.writeBudgets().mintsPerSpace();
    }

    /** Issuances (manager-caller connects under a new nonce) one principal may make per rolling minute. */
    public int issuancesPerPrincipalPerMinute() {
        return settings.writeBudgets().issuancesPerPrincipal();
    }

    /** Issuances the whole space may make per rolling minute. */
    public int issuancesPerSpacePerMinute() {
        return settings.writeBudgets().issuancesPerSpace();
    }

    /** Service-endpoint writes (owner requests binding a new request id) one principal may make per rolling minute. */
    public int endpointWritesPerPrincipalPerMinute() {
        return settings.writeBudgets().endpointWritesPerPrincipal();
    }

    /** Service-endpoint writes the space's owners may make together per rolling minute. */
    public int endpointWritesPerSpacePerMinute() {
        return settings.writeBudgets().endpointWritesPerSpace();
    }

    @Override
    public String toString() {
        return "AuthPlaneOptions[" + settings + ", signer=" + signer.accountPublicKey() + ", tls=" + sslContext.isPresent()
                + ", callout=" + callout.map(CalloutAuth::accountPublicKey).orElse("none") + "]";
    }

    /** Builds {@link AuthPlaneOptions}; {@link #build()} names the first bad option. */
    public static final class Builder extends PlaneSettings.Builder<Builder> {
        private SpaceSigner signer;
        private SSLContext sslContext;
        private CalloutAuth callout;

        private Builder() {
        }

        /** The data account's public key and signing key ({@code SpaceAuth.strip()}). */
        public Builder signer(SpaceSigner signer) {
            this.signer = signer;
            return this;
        }

        public Builder sslContext(SSLContext context) {
            this.sslContext = context;
            return this;
        }

        /**
         * Makes the plane answer its space's auth callout with {@code callout} (the callout account
         * of {@code CalloutAuth.create}, or the one the secret store holds): a responder joins the
         * space's queue group once the plane holds its claim, signs through the plane's signer,
         * reports on {@link AuthAuthorityPlane#health()} and closes first when the plane closes.
         * Without it the plane answers no connect; callout replicas may answer for it.
         */
        public Builder callout(CalloutAuth callout) {
            this.callout = callout;
            return this;
        }

        public AuthPlaneOptions build() {
            PlaneSettings settings = buildSettings();
            if (signer == null) {
                throw CotalException.badRequest("signer", "the data account's signer is required");
            }
            if (!signer.space().equals(settings.space())) {
                throw CotalException.badRequest("signer", "belongs to space '" + signer.space() + "'");
            }
            if (callout != null && !callout.space().equals(settings.space())) {
                throw CotalException.badRequest("callout", "belongs to space '" + callout.space() + "'");
            }
            return new AuthPlaneOptions(settings, this);
        }
    }
}
