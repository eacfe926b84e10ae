package ai.cotal.core.id;

import java.util.regex.Pattern;

/**
 * A lifecycle uid: one incarnation of a principal's grant; every grant mints a new one, and a retired one never connects again (SPEC §1.1, §14.1).
 *
 * <p>Its text is {@value #RULE}. The constructor refuses any other text with a
 * {@link ai.cotal.core.CotalException} {@code bad-request} naming {@code lifecycleUid} (the message never
 * repeats the refused text); {@link #of(String, String)} names another field. Two values are
 * equal when their texts are; {@link #toString()} is the text. Immutable and thread-safe.
 *
 * @param value the canonical text
 */
public record LifecycleUid(String value) {
    /** The grammar of the text: the one place it is written. */
    public static final Pattern PATTERN = Pattern.compile("[a-z0-9]{26,32}");
    /** The grammar in words, as refusals state it. */
    public static final String RULE = "26 to 32 of [a-z0-9]";

    /** Checks {@code value} against {@link #PATTERN}. */
    public LifecycleUid {
        Grammar.require(PATTERN, value, "lifecycleUid", RULE);
    }

    /**
     * The value of {@code text}, a refusal naming {@code field} otherwise.
     *
     * @throws ai.cotal.core.CotalException {@code bad-request} naming {@code field}
     */
    public static LifecycleUid of(String text, String field) {
        return new LifecycleUid(Grammar.require(PATTERN, text, field, RULE));
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
