package ai.cotal.core.internal.creds;

import ai.cotal.core.CotalException;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.trust.SpaceSigner;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The only entry that mints {@code endpoint-serve} (SPEC §3.5): serve rows for one endpoint
 * instance ({@code P.svc.ep.<endpoint>.<instanceId>.>} plus one reply per request). Exported to
 * the auth module only; the plane calls it after it won the gate compare-and-set (§14.2), and
 * {@code Creds.mint} refuses the profile. {@code options.pin()} is the instance id.
 */
public final class EndpointServeMint {
    private static final Pattern ENDPOINT = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    /** The signer {@link Creds} installs when it is initialized: this package cannot see its internals. */
    @FunctionalInterface
    public interface Signer {
        /** Signs an endpoint-serve user JWT for {@code userKey}. */
        String sign(SpaceSigner signer, String userKey, MintOptions options, String endpoint);
    }

    private static volatile Signer installed;

    private EndpointServeMint() {
    }

    /** Called once, by {@link Creds}' initializer; a second installation is refused. */
    public static synchronized void install(Signer signer) {
        if (installed != null) {
            throw new IllegalStateException("the endpoint-serve signer is installed once");
        }
        installed = Objects.requireNonNull(signer, "signer");
    }

    /** An endpoint-serve credential for {@code identity}: call only behind the plane's gate compare-and-set. */
    public static Creds mint(SpaceSigner signer, Identity identity, String endpoint, MintOptions options) {
        Objects.requireNonNull(identity, "identity");
        return new Creds(mintJwt(signer, identity.id(), endpoint, options), identity);
    }

    /** An endpoint-serve user JWT for a remote holder's {@code U...} key, with a bounded {@code exp}. */
    public static String mintJwt(SpaceSigner signer, String userPublicKey, String endpoint, MintOptions options) {
        Objects.requireNonNull(signer, "signer");
        Objects.requireNonNull(options, "options");
        if (endpoint == null || !ENDPOINT.matcher(endpoint).matches()) {
            throw CotalException.badRequest("endpoint", "must be an endpoint token: 1 to 64 letters, digits, _ and -");
        }
        Creds.PUBLIC_KEY_PROFILES.size(); // initializes Creds, which installs the signer
        return installed.sign(signer, userPublicKey, options, endpoint);
    }
}
