package ai.cotal.core.trust;

import ai.cotal.core.CotalException;

/**
 * Space names and the token derived from them. A space name is 1 to 128 characters with no
 * control characters. The token keeps {@code [A-Za-z0-9_-]} and turns every other character into
 * {@code _}; it names the data account, the subject prefix {@code cotal.<token>} and the stores.
 * Two names may share a token: each space lives in its own account, so nothing collides there.
 */
public final class SpaceName {
    private static final int MAX = 128;

    private SpaceName() {
    }

    /** Returns {@code space} when valid; otherwise a {@code bad-request} naming {@code field}. */
    public static String check(String space, String field) {
        if (space == null || space.isBlank()) {
            throw CotalException.badRequest(field, "a space name must not be blank");
        }
        if (space.length() > MAX) {
            throw CotalException.badRequest(field, "a space name has at most " + MAX + " characters");
        }
        for (int i = 0; i < space.length(); i++) {
            if (Character.isISOControl(space.charAt(i))) {
                throw CotalException.badRequest(field, "a space name must not contain control characters");
            }
        }
        return space;
    }

    /** The token of a label or space name: {@code [A-Za-z0-9_-]} kept, others {@code _}, never empty. */
    public static String token(String name) {
        String trimmed = name == null ? "" : name.trim();
        StringBuilder out = new StringBuilder(trimmed.length());
        for (int i = 0; i < trimmed.length(); i++) {
            char c = trimmed.charAt(i);
            boolean keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
            out.append(keep ? c : '_');
        }
        return out.length() == 0 ? "_" : out.toString();
    }

    /** The subject prefix of a space: {@code cotal.<token>}. */
    public static String subjectPrefix(String space) {
        return "cotal." + token(space);
    }
}
