package ai.cotal.core.id;

import ai.cotal.core.CotalException;

/**
 * A space's name: 1 to 128 characters, not blank, no control characters (SPEC §1.1). Its
 * {@linkplain #token() token} keeps {@code [A-Za-z0-9_-]} and turns every other character into
 * {@code _}; it names the data account, the subject prefix {@code cotal.<token>} and the stores.
 * Two names may share a token: each space lives in its own account, so nothing collides there.
 * Two names are equal when their texts are; {@link #toString()} is the text. Immutable and
 * thread-safe.
 *
 * @param value the name as given
 */
public record SpaceName(String value) {
    /** The longest name. */
    public static final int MAX = 128;
    /** The rule in words, as refusals state it. */
    public static final String RULE = "1 to " + MAX + " characters, not blank, no control characters";

    /** Refuses a name outside the rule with {@code bad-request} naming {@code space}. */
    public SpaceName {
        require(value, "space");
    }

    /**
     * The name {@code text}, a refusal naming {@code field} otherwise.
     *
     * @throws CotalException {@code bad-request} naming {@code field}
     */
    public static SpaceName of(String text, String field) {
        return new SpaceName(require(text, field));
    }

    /** True when {@code text} is a space name. */
    public static boolean matches(String text) {
        return problem(text) == null;
    }

    /** The name's token. */
    public String token() {
        return token(value);
    }

    /** The subject prefix of the space: {@code cotal.<token>}. */
    public String subjectPrefix() {
        return "cotal." + token();
    }

    /**
     * The token of a label or a name: {@code [A-Za-z0-9_-]} kept, others {@code _}, never empty
     * (an empty or blank label is {@code _}).
     */
    public static String token(String label) {
        String trimmed = label == null ? "" : label.trim();
        StringBuilder out = new StringBuilder(trimmed.length());
        for (int i = 0; i < trimmed.length(); i++) {
            char c = trimmed.charAt(i);
            boolean keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
            out.append(keep ? c : '_');
        }
        return out.length() == 0 ? "_" : out.toString();
    }

    /** The name. */
    @Override
    public String toString() {
        return value;
    }

    private static String require(String text, String field) {
        String problem = problem(text);
        if (problem != null) {
            throw CotalException.badRequest(field, problem);
        }
        return text;
    }

    private static String problem(String text) {
        if (text == null || text.isBlank()) {
            return "a space name must not be blank";
        }
        if (text.length() > MAX) {
            return "a space name has at most " + MAX + " characters";
        }
        for (int i = 0; i < text.length(); i++) {
            if (Character.isISOControl(text.charAt(i))) {
                return "a space name must not contain control characters";
            }
        }
        return null;
    }
}
