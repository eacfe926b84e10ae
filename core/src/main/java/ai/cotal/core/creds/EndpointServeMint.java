package ai.cotal.core.creds;

import ai.cotal.core.CotalException;
import ai.cotal.core.internal.keys.NKeyCodec;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.trust.SpaceSigner;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The only entry that mints {@code endpoint-serve} (SPEC §3.5): serve rows for one endpoint
 * instance ({@code P.svc.ep.<endpoint>.<instanceId>.>} plus one reply per request). Package-private:
 * it is called behind the plane's gate compare-and-set (§14.2), and {@code Creds.mint} refuses the
 * profile. {@code options.pin()} is the instance id.
 */
final class EndpointServeMint {
    private static final Pattern ENDPOINT = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private EndpointServeMint() {
    }

    /** An endpoint-serve credential for {@code identity}: call only behind the plane's gate compare-and-set. */
    static Creds mint(SpaceSigner signer, Identity identity, String endpoint, MintOptions options) {
        Objects.requireNonNull(identity, "identity");
        return new Creds(mintJwt(signer, identity.id(), endpoint, options), identity);
    }

    /** An endpoint-serve user JWT for a remote holder's {@code U...} key, with a bounded {@code exp}. */
    static String mintJwt(SpaceSigner signer, String userPublicKey, String endpoint, MintOptions options) {
        Objects.requireNonNull(signer, "signer");
        Objects.requireNonNull(options, "options");
        if (endpoint == null || !ENDPOINT.matcher(endpoint).matches()) {
            throw CotalException.badRequest("endpoint", "must be an endpoint token: 1 to 64 letters, digits, _ and -");
        }
        if (!NKeyCodec.isPublic(userPublicKey, KeyType.USER)) {
            throw CotalException.badRequest("userPublicKey", "must be a user public key (U...)");
        }
        return Creds.sign(signer, userPublicKey, CredentialProfile.ENDPOINT_SERVE, options, endpoint);
    }
}
