package ai.cotal.member;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;

/**
 * The inbox nonce of a principal (SPEC §13.16): {@code <tag>-<random>}, the tag 16 lowercase
 * base32 characters of the first 80 bits of SHA-256({@code "cotal-inbox-v1\0" + owner + "\0" + actor}).
 */
final class InboxTag {
    private static final char[] ALPHABET = "abcdefghijklmnopqrstuvwxyz234567".toCharArray();
    private static final SecureRandom RANDOM = new SecureRandom();

    private InboxTag() {
    }

    static String tag(String owner, String actor) {
        byte[] digest;
        try {
            digest = MessageDigest.getInstance("SHA-256").digest(("cotal-inbox-v1\0" + owner + "\0" + actor)
                    .getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
        byte[] head = Arrays.copyOf(digest, 10);
        StringBuilder out = new StringBuilder(16);
        int buffer = 0;
        int bits = 0;
        for (byte b : head) {
            buffer = (buffer << 8) | (b & 0xff);
            bits += 8;
            while (bits >= 5) {
                out.append(ALPHABET[(buffer >> (bits - 5)) & 31]);
                bits -= 5;
            }
        }
        return out.toString();
    }

    static String fresh(String owner, String actor) {
        byte[] bytes = new byte[12];
        RANDOM.nextBytes(bytes);
        return tag(owner, actor) + "-" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
