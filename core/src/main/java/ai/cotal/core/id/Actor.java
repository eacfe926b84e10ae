package ai.cotal.core.id;

import java.util.regex.Pattern;

/**
 * An actor: one of an owner's agents or sessions, named by the owner (SPEC §1.1).
 *
 * <p>Its text is {@value #RULE}. The constructor refuses any other text with a
 * {@link ai.cotal.core.CotalException} {@code bad-request} naming {@code actor} (the message never
 * repeats the refused text); {@link #of(String, String)} names another field. Two values are
 * equal when their texts are; {@link #toString()} is the text. Immutable and thread-safe.
 *
 * @param value the canonical text
 */
public record Actor(String value) {
    /** The grammar of the text: the one place it is written. */
    public static final Pattern PATTERN = Pattern.compile("[A-Za-z0-9_]{1,64}");
    /** The grammar in words, as refusals state it. */
    public static final String RULE = "1 to 64 of [A-Za-z0-9_]";

    /** Checks {@code value} against {@link #PATTERN}. */
    public Actor {
        Grammar.require(PATTERN, value, "actor", RULE);
    }

    /**
     * The value of {@code text}, a refusal naming {@code field} otherwise.
     *
     * @throws ai.cotal.core.CotalException {@code bad-request} naming {@code field}
     */
    public static Actor of(String text, String field) {
        return new Actor(Grammar.require(PATTERN, text, field, RULE));
    }

    /** True when {@code text} matches {@link #PATTERN}. */
    public static boolean matches(String text) {
        return text != null && PATTERN.matcher(text).matches();
    }

    /** The canonical text. */
    @Override
    public String toString() {
        return value;
    }
}
