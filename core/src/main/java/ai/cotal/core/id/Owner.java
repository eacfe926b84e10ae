package ai.cotal.core.id;

import java.util.regex.Pattern;

/**
 * An owner: the pseudonymous account a principal belongs to, derived from an IdP subject (SPEC §1.1). The ledger, the bearers, the callout and the HTTP routes hold an owner to this one rule, so the ledger accepts no principal that no bearer can present.
 *
 * <p>Its text is {@value #RULE}. The constructor refuses any other text with a
 * {@link ai.cotal.core.CotalException} {@code bad-request} naming {@code owner} (the message never
 * repeats the refused text); {@link #of(String, String)} names another field. Two values are
 * equal when their texts are; {@link #toString()} is the text. Immutable and thread-safe.
 *
 * @param value the canonical text
 */
public record Owner(String value) {
    /** The grammar of the text: the one place it is written. */
    public static final Pattern PATTERN = Pattern.compile("u_[a-z2-7]{26}");
    /** The grammar in words, as refusals state it. */
    public static final String RULE = "u_ and 26 of [a-z2-7]";

    /** Checks {@code value} against {@link #PATTERN}. */
    public Owner {
        Grammar.require(PATTERN, value, "owner", RULE);
    }

    /**
     * The value of {@code text}, a refusal naming {@code field} otherwise.
     *
     * @throws ai.cotal.core.CotalException {@code bad-request} naming {@code field}
     */
    public static Owner of(String text, String field) {
        return new Owner(Grammar.require(PATTERN, text, field, RULE));
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
