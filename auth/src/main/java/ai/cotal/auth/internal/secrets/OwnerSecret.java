package ai.cotal.auth.internal.secrets;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.workspace.SecretKeys;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The owner-derivation secret: {@code {ver: 1, secretB64}} (32 bytes) at
 * {@code space.<hex>/owner-secret.json}. It is created once, create-only, by provisioning (SPEC
 * §13.22), so no owner is ever re-keyed; the plane only loads it.
 */
public final class OwnerSecret {
    private static final SecureRandom RANDOM = new SecureRandom();

    private record Document(Integer ver, String secretB64) {
        @Override
        public String toString() {
            return "OwnerSecret";
        }
    }

    private OwnerSecret() {
    }

    /** A new document holding 32 fresh random bytes; written only by provisioning, create-only. */
    public static byte[] newDocument() {
        byte[] secret = new byte[32];
        RANDOM.nextBytes(secret);
        return ClosedJson.write(ClosedJson.cotal(), new Document(1, Base64.getEncoder().encodeToString(secret)));
    }

    /** The secret; {@code failed-precondition} when the store has none (nothing is created). */
    public static byte[] load(SecretStore store, String space) {
        String key = SecretKeys.ownerSecretKey(space);
        return parse(key, store.get(key).orElseThrow(() -> new CotalException(ErrorCode.FAILED_PRECONDITION, "the owner"
                + " secret of space \"" + space + "\" is missing (" + key + ")")));
    }

    private static byte[] parse(String key, byte[] bytes) {
        try {
            Document doc = ClosedJson.read(ClosedJson.cotal(), bytes, Document.class, key);
            byte[] secret = Base64.getDecoder().decode(doc.secretB64() == null ? "" : doc.secretB64());
            if (doc.ver() == null || doc.ver() != 1 || secret.length < 32) {
                throw CotalException.badRequest(key, "needs ver 1 and at least 32 bytes");
            }
            return secret;
        } catch (CotalException | IllegalArgumentException e) {
            throw new CotalException(ErrorCode.DATA_LOSS, key + " is invalid", e);
        }
    }
}
