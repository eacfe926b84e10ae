package ai.cotal.core.keys;

/**
 * The signing key of an account, reached only through what signing needs: its public key and
 * an Ed25519 signature. A space's data-account signing key is one: it signs every user JWT of
 * the space (minted credentials, the callout's admitted users, the plane's own connections).
 * {@link InMemoryAccountSigner} is the default, a key held in this process's memory; an HSM, a
 * KMS or a separate signer process can implement this interface instead, so the seed never
 * enters the process.
 *
 * <p>Implementations must be thread-safe, and their {@code toString()} must never show key
 * material.
 */
public interface AccountSigner {
    /** The signing key's public key ({@code A...}): the {@code iss} of every JWT it signs. */
    String publicKey();

    /**
     * The 64-byte Ed25519 signature of {@code input} by this key. A signer that cannot sign now
     * throws a {@code CotalException} ({@code unavailable} when it may answer later).
     */
    byte[] sign(byte[] input);
}
