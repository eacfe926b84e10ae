package ai.cotal.auth.exchange;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The loopback face's proof that it holds the capability of {@code auth-service.json} (SPEC
 * §13.17): a client sends a fresh challenge in {@value #CHALLENGE_HEADER} with {@code GET /health}
 * and checks {@code proof} = HMAC-SHA256(capability, {@code "cotal-health-v1\0" + challenge})
 * before it sends the capability or any token. A process squatting a stale file's port cannot
 * answer it. Stateless and thread-safe.
 */
public final class HealthProof {
    /** The request header carrying the challenge. */
    public static final String CHALLENGE_HEADER = "X-Cotal-Challenge";
    private static final Pattern CHALLENGE = Pattern.compile("[A-Za-z0-9_-]{43}");
    private static final SecureRandom RANDOM = new SecureRandom();

    private HealthProof() {
    }

    /** A fresh challenge: 32 random bytes, base64url without padding (43 characters). */
    public static String newChallenge() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** Whether {@code challenge} has the challenge's form (43 base64url characters). */
    public static boolean wellFormed(String challenge) {
        return challenge != null && CHALLENGE.matcher(challenge).matches();
    }

    /** The proof for {@code challenge} under the capability's ASCII bytes. */
    public static String proof(byte[] capability, String challenge) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(capability, "HmacSHA256"));
            byte[] tag = mac.doFinal(("cotal-health-v1\0" + challenge).getBytes(StandardCharsets.US_ASCII));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(tag);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JDK", e);
        }
    }

    /** Whether {@code proof} answers {@code challenge} under {@code capability} (compared in constant time). */
    public static boolean verifies(String capability, String challenge, String proof) {
        if (capability == null || capability.isEmpty() || proof == null || !wellFormed(challenge)) {
            return false;
        }
        return MessageDigest.isEqual(proof(capability.getBytes(StandardCharsets.US_ASCII), challenge)
                .getBytes(StandardCharsets.US_ASCII), proof.getBytes(StandardCharsets.US_ASCII));
    }
}
