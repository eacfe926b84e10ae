package ai.cotal.core.creds;

import ai.cotal.core.keys.KeyType;
import ai.cotal.core.keys.NKeyPair;
import java.util.Objects;

/**
 * A user identity: a user nkey. Its public key ({@code U...}) is the id a credential is minted
 * for; the seed goes into the {@code .creds} text. Immutable; {@code toString()} shows the id only.
 */
public record Identity(NKeyPair key) {
    public Identity {
        Objects.requireNonNull(key, "key");
        if (key.type() != KeyType.USER) {
            throw ai.cotal.core.CotalException.badRequest("key", "an identity is a user key");
        }
    }

    /** A new random identity. */
    public static Identity create() {
        return new Identity(NKeyPair.create(KeyType.USER));
    }

    /** The identity of a user seed ({@code SU...}). */
    public static Identity fromSeed(String seed) {
        return new Identity(NKeyPair.fromSeed(seed, KeyType.USER, "seed"));
    }

    /** The public key ({@code U...}). */
    public String id() {
        return key.publicKey();
    }
}
