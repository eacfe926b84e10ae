package ai.cotal.core.id;

import java.util.regex.Pattern;

/**
 * A credential id: the key of one connect-credential row a bearer names (SPEC §1.1, §13.14).
 *
 * <p>Its text is {@value #RULE}. The constructor refuses any other text with a
 * {@link ai.cotal.core.CotalException} {@code bad-request} naming {@code credentialId} (the message never
 * repeats the refused text); {@link #of(String, String)} names another field. Two values are
 * equal when their texts are; {@link #toString()} is the text. Immutable and thread-safe.
 *
 * @param value the canonical text
 */
public record CredentialId(String value) {
    /** The grammar of the text: the one place it is written. */
    public static final Pattern PATTERN = Pattern.compile("[a-z2-7]{26}");
    /** The grammar in words, as refusals state it. */
    public static final String RULE = "26 of [a-z2-7]";

    /** Checks {@code value} against {@link #PATTERN}. */
    public CredentialId {
        Grammar.require(PATTERN, value, "credentialId", RULE);
    }

    /**
     * The value of {@code text}, a refusal naming {@code field} otherwise.
     *
     * @throws ai.cotal.core.CotalException {@code bad-request} naming {@code field}
     */
    public static CredentialId of(String text, String field) {
        return new CredentialId(Grammar.require(PATTERN, text, field, RULE));
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
