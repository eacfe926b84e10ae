package ai.cotal.auth;

import ai.cotal.core.CotalException;
import ai.cotal.core.id.Principal;
import ai.cotal.core.id.SpaceName;
import java.util.ArrayList;
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
 * optional is empty.
 *
 * <p>The subjects each field opens to a connection of principal {@code <owner>.<actor>} in space
 * {@code <s>} (the space's token), in the plain view of the auth callout (SPEC §13.16);
 * {@link #subjects} returns them for one connection:
 *
 * <table class="striped">
 *   <caption>Grant fields and the subjects they open</caption>
 *   <thead><tr><th>field</th><th>publish</th><th>subscribe</th></tr></thead>
 *   <tbody>
 *     <tr><td>{@code allowPublish} item {@code <ch>}</td><td>{@code cotal.<s>.chat.<owner>.<actor>.<ch>}: its own
 *       sender tokens only</td><td>nothing</td></tr>
 *     <tr><td>{@code allowSubscribe} item {@code <ch>}</td><td>nothing</td><td>{@code cotal.<s>.chat.*.*.<ch>}: every
 *       member's messages on the channel</td></tr>
 *     <tr><td>(every grant)</td><td>nothing</td><td>{@code _INBOX_<nonce>.>}: its own inbox, the nonce being
 *       the principal's ({@link InboxNonce})</td></tr>
 *     <tr><td>{@code scope}</td><td colspan="2">no subject: the scopes a bearer may ask for at connect</td></tr>
 *     <tr><td>{@code role}, {@code parent}, {@code label}</td><td colspan="2">no subject: recorded only</td></tr>
 *   </tbody>
 * </table>
 *
 * <p>No publish item at all: every publish is denied. Immutable and thread-safe.
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

    /**
     * The subjects this grant opens to the connection of {@code principal} in {@code space} that
     * connects under inbox nonce {@code nonce}: exactly the allow lists the auth callout writes into
     * that connection's user JWT in the plain view (SPEC §13.16), computed by the same code. Publish
     * {@code cotal.<s>.chat.<owner>.<actor>.<ch>} per {@code allowPublish} item; subscribe
     * {@code _INBOX_<nonce>.>}, then {@code cotal.<s>.chat.*.*.<ch>} per {@code allowSubscribe}
     * item. Reads nothing; the ledger need not hold the grant yet.
     *
     * @throws CotalException {@code bad-request} naming {@code space} or {@code principal} when
     *     absent, or {@code nonce} when it is not an inbox nonce of {@code principal}
     *     ({@link InboxNonce#belongsTo}: the callout refuses such a connect)
     */
    public GrantSubjects subjects(SpaceName space, Principal principal, String nonce) {
        if (space == null) {
            throw CotalException.badRequest("space", "is required");
        }
        if (principal == null) {
            throw CotalException.badRequest("principal", "is required");
        }
        if (!InboxNonce.belongsTo(nonce, principal)) {
            throw CotalException.badRequest("nonce", "is not an inbox nonce of " + principal
                    + "; derive it with InboxNonce.forPrincipal(principal)");
        }
        String chat = space.subjectPrefix() + ".chat.";
        List<String> publish = new ArrayList<>(allowPublish.size());
        allowPublish.forEach(ch -> publish.add(chat + principal.owner().value() + "." + principal.actor().value() + "." + ch));
        List<String> subscribe = new ArrayList<>(allowSubscribe.size() + 1);
        subscribe.add(InboxNonce.inboxPrefix(nonce) + ".>");
        allowSubscribe.forEach(ch -> subscribe.add(chat + "*.*." + ch));
        return new GrantSubjects(publish, subscribe);
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
