package ai.cotal.core.secrets;

import ai.cotal.core.CotalException;
import java.util.Optional;

/**
 * Where a {@link SecretStore} keeps its values: {@code {kind: fs, root}} for the file store or
 * {@code {kind: injected, coordinate}} for a store the host injects (a vault path, a KMS key
 * ring). Immutable.
 */
public record SecretStoreIdentity(Kind kind, String location) {
    /** The two kinds of store. */
    public enum Kind { FS, INJECTED }

    public SecretStoreIdentity {
        if (kind == null) {
            throw CotalException.badRequest("kind", "must be fs or injected");
        }
        if (location == null || location.isBlank()) {
            throw CotalException.badRequest(kind == Kind.FS ? "root" : "coordinate", "must not be blank");
        }
    }

    public static SecretStoreIdentity fs(String root) {
        return new SecretStoreIdentity(Kind.FS, root);
    }

    public static SecretStoreIdentity injected(String coordinate) {
        return new SecretStoreIdentity(Kind.INJECTED, coordinate);
    }

    /** True only when both stores declare an identity and the identities are equal. */
    public static boolean sameIdentity(SecretStore a, SecretStore b) {
        Optional<SecretStoreIdentity> left = a.identity();
        return left.isPresent() && left.equals(b.identity());
    }
}
