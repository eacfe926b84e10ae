package ai.cotal.core.keys;

import ai.cotal.core.CotalException;
import java.util.Objects;

/**
 * The default {@link AccountSigner}: an account signing key held in this process's memory,
 * signing with Bouncy Castle ({@link NKeyPair#sign}). Ed25519 is deterministic, so a given input
 * always gets the same signature. The seed never leaves it.
 *
 * <p>Immutable and thread-safe; equal to another of the same public key; {@code toString()} shows
 * the public key only.
 */
public final class InMemoryAccountSigner implements AccountSigner {
    private final NKeyPair key;

    /** Signs with {@code key}, which must be an account key. */
    public InMemoryAccountSigner(NKeyPair key) {
        Objects.requireNonNull(key, "signing");
        if (key.type() != KeyType.ACCOUNT) {
            throw CotalException.badRequest("signing", "must be an account signing key");
        }
        this.key = key;
    }

    @Override
    public String publicKey() {
        return key.publicKey();
    }

    @Override
    public byte[] sign(byte[] input) {
        return key.sign(input);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof InMemoryAccountSigner other && other.key.equals(key);
    }

    @Override
    public int hashCode() {
        return key.hashCode();
    }

    @Override
    public String toString() {
        return "InMemoryAccountSigner[" + key.publicKey() + "]";
    }
}
