package ai.cotal.auth;

import ai.cotal.core.CotalException;
import ai.cotal.core.id.Owner;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.core.internal.keys.NKeyCodec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Owner derivation: an IdP subject becomes an owner token without revealing it.
 * {@code owner = "u_" + base32lower(first 16 bytes of HMAC-SHA256(secret, "cotal-owner-v1:" + input))},
 * where for an IdP subject {@code input} is the JSON array {@code [issuer, subject]}. The secret
 * is at least 32 bytes.
 * What it returns is an {@link Owner}'s text ({@link Owner#RULE}), the one owner rule the
 * ledger, the bearers, the callout and the routes hold. Thread-safe (no state).
 */
public final class Owners {
    private Owners() {
    }

    /** The owner token of {@code subject} at {@code issuer}. */
    public static Owner deriveOwnerForIdpSubject(byte[] secret, String issuer, String subject) {
        if (issuer == null || issuer.isEmpty() || subject == null || subject.isEmpty()) {
            throw CotalException.badRequest("subject", "issuer and subject must be non-empty");
        }
        return deriveOwnerToken(secret, new String(ClosedJson.write(ClosedJson.cotal(), List.of(issuer, subject)),
                StandardCharsets.UTF_8));
    }

    /** The owner of {@code input}: {@code u_} + 26 lowercase base32 characters. */
    public static Owner deriveOwnerToken(byte[] secret, String input) {
        if (secret == null || secret.length < 32) {
            throw CotalException.badRequest("ownerSecret", "must be at least 32 bytes");
        }
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            byte[] digest = mac.doFinal(("cotal-owner-v1:" + input).getBytes(StandardCharsets.UTF_8));
            return new Owner("u_" + NKeyCodec.base32(java.util.Arrays.copyOf(digest, 16)).toLowerCase(java.util.Locale.ROOT));
        } catch (GeneralSecurityException e) {
            throw CotalException.internal("HmacSHA256 unavailable", e);
        }
    }
}
