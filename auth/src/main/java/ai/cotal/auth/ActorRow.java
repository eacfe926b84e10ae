package ai.cotal.auth;

import ai.cotal.core.CotalException;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One principal's row in the actor ledger: what it may do (scope, channel grants), its current
 * lifecycle uid, and for managed actors the hash of their actor token. The kind comes from the
 * directory the row lives in, never from a field. Immutable; {@code toString()} omits the token
 * hash.
 */
public record ActorRow(Kind kind, String owner, String actor, List<String> scope, List<String> allowSubscribe,
        List<String> allowPublish, Optional<String> role, Optional<String> parent, Optional<String> label,
        Optional<String> tokenHash, String lifecycleUid, String grantedAt) {
    static final Pattern NAME = Pattern.compile("[A-Za-z0-9_]{1,64}");
    static final Pattern UID = Pattern.compile("[a-z0-9]{26,32}");
    private static final Pattern TOKEN_HASH = Pattern.compile("[0-9a-f]{64}");
    private static final Pattern ITEM = Pattern.compile("[A-Za-z0-9_.:*>-]{1,128}");

    /** Interactive (a person's session) or managed (an agent with an actor token). */
    public enum Kind { INTERACTIVE, MANAGED }

    public ActorRow {
        check(NAME, owner, "owner");
        check(NAME, actor, "actor");
        check(UID, lifecycleUid, "lifecycleUid");
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
        parent.ifPresent(p -> {
            if (!p.matches("[A-Za-z0-9_]{1,64}\\.[A-Za-z0-9_]{1,64}")) {
                throw CotalException.badRequest("parent", "must be <owner>.<actor>");
            }
        });
    }

    /** {@code <owner>.<actor>}. */
    public String principal() {
        return owner + "." + actor;
    }

    private static List<String> items(List<String> values, String field) {
        if (values == null) {
            throw CotalException.badRequest(field, "is required (may be empty)");
        }
        for (String value : values) {
            check(ITEM, value, field);
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
        return "ActorRow[" + kind + " " + principal() + " scope=" + scope + " uid=" + lifecycleUid + "]";
    }
}
