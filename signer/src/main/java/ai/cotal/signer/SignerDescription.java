package ai.cotal.signer;

/**
 * What a remote signer says it is (SPEC §16.1): its space, the data account it serves and the
 * public key it signs with. Public keys only.
 *
 * @param space the space
 * @param accountPublicKey the data account ({@code A...})
 * @param signingKey the signing key's public key ({@code A...}): the {@code iss} of what it signs
 */
public record SignerDescription(String space, String accountPublicKey, String signingKey) {
}
