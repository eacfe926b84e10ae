package ai.cotal.core.secrets;

import ai.cotal.core.CotalException;

/**
 * The grammar of secret-store keys: a relative path of 1 to 16 segments joined by {@code /},
 * each segment 1 to 128 characters of {@code [A-Za-z0-9._-]}, never {@code .} or {@code ..};
 * at most 512 characters in all. Absolute paths, empty segments, NUL and every other character
 * are refused, so a key can never leave the store's root.
 */
public final class SecretKey {
    private static final int MAX_LENGTH = 512;
    private static final int MAX_SEGMENTS = 16;

    private SecretKey() {
    }

    /** Returns {@code key} when valid; otherwise {@code bad-request} naming the key's problem. */
    public static String check(String key) {
        if (key == null || key.isEmpty()) {
            throw CotalException.badRequest("key", "must not be empty");
        }
        if (key.length() > MAX_LENGTH) {
            throw CotalException.badRequest("key", "longer than " + MAX_LENGTH + " characters");
        }
        String[] segments = key.split("/", -1);
        if (segments.length > MAX_SEGMENTS) {
            throw CotalException.badRequest("key", "more than " + MAX_SEGMENTS + " segments");
        }
        for (String segment : segments) {
            if (segment.isEmpty()) {
                throw CotalException.badRequest("key", "absolute, or has an empty segment");
            }
            if (segment.equals(".") || segment.equals("..")) {
                throw CotalException.badRequest("key", "'.' and '..' segments are not allowed");
            }
            if (segment.length() > 128) {
                throw CotalException.badRequest("key", "a segment is longer than 128 characters");
            }
            for (int i = 0; i < segment.length(); i++) {
                char c = segment.charAt(i);
                boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                        || c == '.' || c == '_' || c == '-';
                if (!ok) {
                    throw CotalException.badRequest("key", "only letters, digits, '.', '_' and '-' in a segment");
                }
            }
        }
        return key;
    }
}
