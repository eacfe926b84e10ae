package ai.cotal.core.id;

import ai.cotal.core.CotalException;
import java.util.regex.Pattern;

/** The one check every identifier of this package runs at construction. */
final class Grammar {
    private Grammar() {
    }

    /**
     * Returns {@code value} when it matches {@code pattern}.
     *
     * @throws CotalException {@code bad-request} naming {@code field} and the {@code rule}, never the value
     */
    static String require(Pattern pattern, String value, String field, String rule) {
        if (value == null || !pattern.matcher(value).matches()) {
            throw CotalException.badRequest(field, "must be " + rule);
        }
        return value;
    }
}
