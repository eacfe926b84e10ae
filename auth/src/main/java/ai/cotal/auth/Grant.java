package ai.cotal.auth;

import ai.cotal.core.CotalException;
import ai.cotal.core.id.Principal;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What the actor ledger grants a principal (SPEC §13.14): its scopes and the chat channels it may
 * read and write, with an optional role, parent and label. Every list is explicit (possibly
 * empty); every item is 1 to 128 characters of tokens of {@code [A-Za-z0-9_:-]} joined by
 * {@code .}, with no wildcard ({@code *}, {@code >}) and no empty token, since an item becomes the
 * last tokens of a broker subject. Anything else is refused at construction with
 * {@code bad-request} naming the field and index (e.g. {@code allowSubscribe[0]}); a null
 * optional is empty. Immutable and thread-safe.
 *
 * @param scope the scopes a bearer of the principal may ask for; not a subject
 * @param allowSubscribe the channels it may read
 * @param allowPublish the channels it may write
 * @param role a free-form role, recorded only
 * @param parent the principal this one acts for, recorded only
 * @param label a free-form label, recorded only
 */
public record Grant(List<String> scope, List<String> allowSubscribe, List<String> allowPublish, Optional<String> role,
        Optional<Principal> parent, Optional<String> label) {
    /** A grant item: literal tokens joined by {@code .}, never a wildcard or an empty token. */
    private static final Pattern ITEM = Pattern.compile("(?=.{1,128}$)[A-Za-z0-9_:-]+(\\.[A-Za-z0-9_:-]+)*");

    /**
     * Checks every item.
     *
     * @throws CotalException {@code bad-request} naming the field (and the index of a bad item)
     */
    public Grant {
        scope = items(scope, "scope");
        allowSubscribe = items(allowSubscribe, "allowSubscribe");
        allowPublish = items(allowPublish, "allowPublish");
        role = role == null ? Optional.empty() : role;
        parent = parent == null ? Optional.empty() : parent;
        label = label == null ? Optional.empty() : label;
    }

    /**
     * A grant of these scopes and channels, without role, parent or label.
     *
     * @throws CotalException {@code bad-request} naming the field (and the index of a bad item)
     */
    public static Grant of(List<String> scope, List<String> allowSubscribe, List<String> allowPublish) {
        return new Grant(scope, allowSubscribe, allowPublish, Optional.empty(), Optional.empty(), Optional.empty());
    }

    /** {@code values} checked as the grant items of {@code field}, copied; the one grammar a ledger row's lists share. */
    static List<String> items(List<String> values, String field) {
        if (values == null) {
            throw CotalException.badRequest(field, "is required (may be empty)");
        }
        for (int i = 0; i < values.size(); i++) {
            String value = values.get(i);
            if (value == null || !ITEM.matcher(value).matches()) {
                throw CotalException.badRequest(field + "[" + i + "]", "must be 1 to 128 characters of tokens of"
                        + " [A-Za-z0-9_:-] joined by '.': no wildcard (* or >) and no empty token");
            }
        }
        return List.copyOf(values);
    }
}
