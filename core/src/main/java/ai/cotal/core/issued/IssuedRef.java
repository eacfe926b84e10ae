package ai.cotal.core.issued;

import ai.cotal.core.CotalException;
import ai.cotal.core.id.Actor;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.SpaceName;
import java.util.regex.Pattern;

/**
 * Names one issuance: the principal ({@code owner}, {@code actor}), the incarnation
 * ({@code uid}) and the generation the issuer chose (32 lowercase hex). Its key form
 * {@code <owner>.<actor>.<uid>.<generation>} is a valid KV key.
 */
public record IssuedRef(String space, String owner, String actor, String uid, String generation) {
    private static final Pattern GENERATION = Pattern.compile("[0-9a-f]{32}");

    public IssuedRef {
        SpaceName.of(space, "ref.space");
        check(Owner.PATTERN, owner, "ref.owner");
        check(Actor.PATTERN, actor, "ref.actor");
        check(LifecycleUid.PATTERN, uid, "ref.uid");
        check(GENERATION, generation, "ref.generation");
    }

    private static void check(Pattern pattern, String value, String field) {
        if (value == null || !pattern.matcher(value).matches()) {
            throw CotalException.badRequest(field, "does not match " + pattern.pattern());
        }
    }

    /** {@code <owner>.<actor>.<uid>.<generation>}. */
    public String key() {
        return owner + "." + actor + "." + uid + "." + generation;
    }
}
