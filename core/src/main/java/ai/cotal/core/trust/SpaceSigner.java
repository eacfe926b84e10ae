package ai.cotal.core.trust;

import ai.cotal.core.CotalException;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.keys.NKeyPair;
import java.util.Objects;

/**
 * What a credential signer needs of a space and nothing more: the space, the data account's
 * public key and its signing key. {@link SpaceAuth#strip()} produces it; a signer mount holds
 * only this. Immutable; {@code toString()} shows public keys only.
 */
public record SpaceSigner(String space, String accountPublicKey, NKeyPair signing) {
    public SpaceSigner {
        SpaceName.check(space, "space");
        Objects.requireNonNull(signing, "signing");
        if (signing.type() != KeyType.ACCOUNT) {
            throw CotalException.badRequest("signing", "must be an account signing key");
        }
        if (accountPublicKey == null || accountPublicKey.charAt(0) != 'A') {
            throw CotalException.badRequest("accountPublicKey", "must be an account public key");
        }
    }
}
