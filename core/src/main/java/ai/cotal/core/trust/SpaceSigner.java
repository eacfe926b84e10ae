package ai.cotal.core.trust;

import ai.cotal.core.id.SpaceName;
import ai.cotal.core.CotalException;
import ai.cotal.core.internal.keys.NKeyCodec;
import ai.cotal.core.keys.AccountSigner;
import ai.cotal.core.keys.KeyType;
import java.util.Objects;

/**
 * What a credential signer needs of a space and nothing more: the space, the data account's
 * public key and the signer of its signing key ({@link AccountSigner}: in memory by default, or
 * an HSM, a KMS, a signer process). {@link SpaceAuth#strip()} produces it; a signer mount holds
 * only this. It carries no seed. Immutable; {@code toString()} shows public keys only.
 */
public record SpaceSigner(String space, String accountPublicKey, AccountSigner signing) {
    public SpaceSigner {
        SpaceName.of(space, "space");
        Objects.requireNonNull(signing, "signing");
        if (!NKeyCodec.isPublic(signing.publicKey(), KeyType.ACCOUNT)) {
            throw CotalException.badRequest("signing", "must be an account signing key");
        }
        if (accountPublicKey == null || accountPublicKey.charAt(0) != 'A') {
            throw CotalException.badRequest("accountPublicKey", "must be an account public key");
        }
    }
}
