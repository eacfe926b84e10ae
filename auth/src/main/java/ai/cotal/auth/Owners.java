package ai.cotal.auth;

import ai.cotal.core.CotalException;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.core.internal.keys.NKeyCodec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.List;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Owner derivation: an IdP subject becomes an owner token without revealing it.
 * {@code owner = "u_" + base32lower(first 16 bytes of HMAC-SHA256(secret, "cotal-owner-v1:" + input))},
 * where for an IdP subject {@code input} is the JSON array {@code [issuer, subject]}. The secret
 * is at least 32 bytes.
 *
 * <p>{@link #SHAPE} is the one shape of an owner: the actor ledger's rows and lookups, the
 * lifecycles, the service-endpoint host's granters and the bearer verifier all hold an owner to
 * it, so the ledger accepts no principal that no bearer can present. Thread-safe (no state).
 */
public final class Owners {
    /** An owner: {@code u_} and 26 lowercase base32 characters, what {@link #deriveOwnerToken} returns. */
    public static final Pattern SHAPE = Pattern.compile("u_[a-z2-7]{26}");

    private Owners() {
    }

    /** True when {@code value} has the shape of an owner ({@link #SHAPE}). */
    public static boolean isOwner(String value) {
        return value != null && SHAPE.matcher(value).matches();
    }

    /**
     * Returns {@code value} when it has the shape of an owner.
     *
     * @throws CotalException {@code bad-request} naming {@code field} otherwise
     */
    public static String checkOwner(String value, String field) {
        if (!isOwner(value)) {
            throw CotalException.badRequest(field, "must be an owner: u_ and 26 of [a-z2-7]");
        }
        return value;
    }

    /** The owner token of {@code subject} at {@code issuer}. */
    public static String deriveOwnerForIdpSubject(byte[] secret, String issuer, String subject) {
        if (issuer == null || issuer.isEmpty() || subject == null || subject.isEmpty()) {
            throw CotalException.badRequest("subject", "issuer and subject must be non-empty");
        }
        return deriveOwnerToken(secret, new String(ClosedJson.write(ClosedJson.cotal(), List.of(issuer, subject)),
                StandardCharsets.UTF_8));
    }

    /** {@code u_} + 26 lowercase base32 characters. */
    public static String deriveOwnerToken(byte[] secret, String input) {
        if (secret == null || secret.length < 32) {
            throw CotalException.badRequest("ownerSecret", "must be at least 32 bytes");
        }
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            byte[] digest = mac.doFinal(("cotal-owner-v1:" + input).getBytes(StandardCharsets.UTF_8));
            return "u_" + NKeyCodec.base32(java.util.Arrays.copyOf(digest, 16)).toLowerCase(java.util.Locale.ROOT);
        } catch (GeneralSecurityException e) {
            throw CotalException.internal("HmacSHA256 unavailable", e);
        }
    }
}
