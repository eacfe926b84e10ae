package ai.cotal.auth;

import ai.cotal.core.CotalException;
import ai.cotal.core.id.Actor;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One principal's row in the actor ledger: what it may do (scope, channel grants), its current
 * lifecycle uid, and for managed actors the hash of their actor token. The kind comes from the
 * directory the row lives in, never from a field. The principal and a parent are
 * {@link Principal}s, whose owner rule is the one a bearer can present; every grant item ({@code scope},
 * {@code allowSubscribe}, {@code allowPublish}) is 1 to 128 characters of tokens of
 * {@code [A-Za-z0-9_:-]} joined by {@code .}: no wildcard ({@code *}, {@code >}) and no empty
 * token, since an item becomes the last tokens of a broker subject. Anything else is
 * {@code bad-request} naming the field (e.g. {@code allowSubscribe[0]}). Immutable;
 * {@code toString()} omits the token hash.
 */
public record ActorRow(Kind kind, Principal principal, List<String> scope, List<String> allowSubscribe,
        List<String> allowPublish, Optional<String> role, Optional<Principal> parent, Optional<String> label,
        Optional<String> tokenHash, LifecycleUid lifecycleUid, String grantedAt) {
    private static final Pattern TOKEN_HASH = Pattern.compile("[0-9a-f]{64}");
    /** A grant item: literal tokens joined by {@code .}, never a wildcard or an empty token. */
    private static final Pattern ITEM = Pattern.compile("(?=.{1,128}$)[A-Za-z0-9_:-]+(\\.[A-Za-z0-9_:-]+)*");

    /** Interactive (a person's session) or managed (an agent with an actor token). */
    public enum Kind { INTERACTIVE, MANAGED }

    public ActorRow {
        if (principal == null) {
            throw CotalException.badRequest("principal", "is required");
        }
        if (lifecycleUid == null) {
            throw CotalException.badRequest("lifecycleUid", "is required");
        }
        scope = items(scope, "scope");
        allowSubscribe = items(allowSubscribe, "allowSubscribe");
        allowPublish = items(allowPublish, "allowPublish");
        role = role == null ? Optional.empty() : role;
        parent = parent == null ? Optional.empty() : parent;
        label = label == null ? Optional.empty() : label;
        tokenHash = tokenHash == null ? Optional.empty() : tokenHash;
        if (kind == Kind.MANAGED && tokenHash.isEmpty()) {
            throw CotalException.badRequest("tokenHash", "a managed row needs the hash of its actor token");
        }
        if (kind == Kind.INTERACTIVE && tokenHash.isPresent()) {
            throw CotalException.badRequest("tokenHash", "an interactive row has no actor token");
        }
        tokenHash.ifPresent(h -> check(TOKEN_HASH, h, "tokenHash"));
    }

    /** The principal's owner. */
    public Owner owner() {
        return principal.owner();
    }

    /** The principal's actor. */
    public Actor actor() {
        return principal.actor();
    }

    /** {@code values} as grant items (a copy), each checked; {@code bad-request} naming {@code field[i]}. */
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

    static void check(Pattern pattern, String value, String field) {
        if (value == null || !pattern.matcher(value).matches()) {
            throw CotalException.badRequest(field, "does not match " + pattern.pattern());
        }
    }

    @Override
    public String toString() {
        return "ActorRow[" + kind + " " + principal + " scope=" + scope + " uid=" + lifecycleUid + "]";
    }
}
