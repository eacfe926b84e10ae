package ai.cotal.core.id;

import ai.cotal.core.CotalException;

/**
 * A principal: an {@link Owner} and one of its {@link Actor}s, the identity a ledger row, a
 * credential row and a bearer name. Its text is {@code <owner>.<actor>} (SPEC §1.1). Two
 * principals are equal when their owners and actors are; {@link #toString()} is the text.
 * Immutable and thread-safe.
 *
 * @param owner the owner
 * @param actor the actor
 */
public record Principal(Owner owner, Actor actor) {
    /** Refuses a missing part with {@code bad-request} naming it. */
    public Principal {
        if (owner == null) {
            throw CotalException.badRequest("owner", "is required");
        }
        if (actor == null) {
            throw CotalException.badRequest("actor", "is required");
        }
    }

    /**
     * The principal of two texts, each checked by its type.
     *
     * @throws CotalException {@code bad-request} naming {@code owner} or {@code actor}
     */
    public static Principal of(String owner, String actor) {
        return new Principal(new Owner(owner), new Actor(actor));
    }

    /**
     * The principal {@code <owner>.<actor>} of {@code text}.
     *
     * @throws CotalException {@code bad-request} naming {@code field} unless {@code text} is an
     *     owner, a dot and an actor
     */
    public static Principal parse(String text, String field) {
        int dot = text == null ? -1 : text.indexOf('.');
        if (dot < 0 || !Owner.matches(text.substring(0, dot)) || !Actor.matches(text.substring(dot + 1))) {
            throw CotalException.badRequest(field, "must be <owner>.<actor>: an owner (" + Owner.RULE
                    + "), a dot and an actor (" + Actor.RULE + ")");
        }
        return new Principal(new Owner(text.substring(0, dot)), new Actor(text.substring(dot + 1)));
    }

    /** True when {@code text} is {@code <owner>.<actor>}. */
    public static boolean matches(String text) {
        int dot = text == null ? -1 : text.indexOf('.');
        return dot > 0 && Owner.matches(text.substring(0, dot)) && Actor.matches(text.substring(dot + 1));
    }

    /** {@code <owner>.<actor>}. */
    @Override
    public String toString() {
        return owner.value() + "." + actor.value();
    }
}
