package ai.cotal.auth;

import ai.cotal.auth.ActorRow;
import ai.cotal.core.CotalException;
import ai.cotal.core.id.Principal;
import ai.cotal.core.internal.keys.NKeyCodec;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The inbox nonce a client connects under through the auth callout (SPEC §13.16): its connection
 * name, and {@code _INBOX_<nonce>} its inbox prefix. A nonce is {@code <tag>-<random>}: the tag is
 * derived from the principal, so the callout admits a nonce only for the principal it belongs to
 * and one member can never subscribe to another's inbox, whatever nonce it copies from a reply
 * subject. The tag is {@value #TAG_LENGTH} lowercase base32 characters of
 * SHA-256({@code "cotal-inbox-v1\0" + owner + "\0" + actor}) (its first 80 bits); the random part
 * is 8 to 103 of {@code [A-Za-z0-9_-]} chosen by the client. Nonces are not secret (they travel in
 * reply subjects); they only have to be the principal's. Stateless and thread-safe.
 */
public final class InboxNonce {
    /** The length of the principal's tag. */
    public static final int TAG_LENGTH = 16;
    /** The longest random part: the whole nonce stays within 120 characters. */
    public static final int MAX_RANDOM_LENGTH = 120 - TAG_LENGTH - 1;
    private static final Pattern NONCE = Pattern.compile("[A-Za-z0-9_-]{8,120}");
    private static final Pattern RANDOM_PART = Pattern.compile("[A-Za-z0-9_-]{8," + MAX_RANDOM_LENGTH + "}");
    private static final SecureRandom RANDOM = new SecureRandom();

    private InboxNonce() {
    }

    /** A fresh nonce of the principal: its tag, a dash and 16 random base64url characters (96 bits). */
    public static String forPrincipal(Principal principal) {
        byte[] bytes = new byte[12];
        RANDOM.nextBytes(bytes);
        return tag(principal) + "-" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /**
     * The principal's nonce with a random part the caller picked (a test's fixed name, a client
     * that keeps its own counter): {@code random} is 8 to {@value #MAX_RANDOM_LENGTH} of
     * {@code [A-Za-z0-9_-]}, else {@code bad-request} naming {@code random}.
     */
    public static String of(Principal principal, String random) {
        if (random == null || !RANDOM_PART.matcher(random).matches()) {
            throw CotalException.badRequest("random", "must be 8 to " + MAX_RANDOM_LENGTH + " of [A-Za-z0-9_-]");
        }
        return tag(principal) + "-" + random;
    }

    /** The principal's tag. */
    public static String tag(Principal principal) {
        byte[] digest;
        try {
            digest = MessageDigest.getInstance("SHA-256").digest(("cotal-inbox-v1\0" + principal.owner().value() + "\0"
                    + principal.actor().value())
                    .getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
        byte[] head = java.util.Arrays.copyOf(digest, TAG_LENGTH * 5 / 8);
        return NKeyCodec.base32(head).toLowerCase(Locale.ROOT);
    }

    /**
     * Whether {@code nonce} is a well-formed nonce of this principal: 8 to 120 of
     * {@code [A-Za-z0-9_-]}, the principal's tag, a dash, then at least 8 more characters.
     */
    public static boolean belongsTo(String nonce, Principal principal) {
        if (nonce == null || !NONCE.matcher(nonce).matches() || nonce.length() < TAG_LENGTH + 1 + 8) {
            return false;
        }
        return nonce.startsWith(tag(principal)) && nonce.charAt(TAG_LENGTH) == '-';
    }

    /** The inbox prefix a client under {@code nonce} sets: {@code _INBOX_<nonce>}. */
    public static String inboxPrefix(String nonce) {
        return "_INBOX_" + nonce;
    }
}
