package ai.cotal.core.issued;

import ai.cotal.core.CotalException;
import ai.cotal.core.trust.SpaceName;
import java.util.regex.Pattern;

/**
 * Names one issuance: the principal ({@code owner}, {@code actor}), the incarnation
 * ({@code uid}) and the generation the issuer chose (32 lowercase hex). Its key form
 * {@code <owner>.<actor>.<uid>.<generation>} is a valid KV key.
 */
public record IssuedRef(String space, String owner, String actor, String uid, String generation) {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_]{1,64}");
    private static final Pattern UID = Pattern.compile("[a-z0-9]{26,32}");
    private static final Pattern GENERATION = Pattern.compile("[0-9a-f]{32}");

    public IssuedRef {
        SpaceName.check(space, "ref.space");
        check(NAME, owner, "ref.owner");
        check(NAME, actor, "ref.actor");
        check(UID, uid, "ref.uid");
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
