package ai.cotal.auth;

import ai.cotal.core.CotalException;
import ai.cotal.core.id.Actor;
import java.util.regex.Pattern;

/**
 * Who asks the service-endpoint host (SPEC §13.1). The host authenticates nobody: the embedder
 * passes a granter it has already authenticated (the stock route derives it from an IdP proof).
 * An {@link Owner} needs a current interactive ledger row for every write: its actor's, or, when
 * it was proved without naming an actor ({@link Owner#Owner(String)}, as the stock route proves
 * it), any one of its own. An {@link Operator} is named by an audit id and is the only granter
 * that binds names or revokes another owner's instance.
 */
public sealed interface Granter {
    /** A line for audit logs: never a secret. */
    String audit();

    /**
     * An owner {@code u_…} acting as {@code actor}, or ({@code actor} null) the owner as an IdP
     * proof names it, acting through none of its actors in particular.
     */
    record Owner(String owner, String actor) implements Granter {
        public Owner {
            ai.cotal.core.id.Owner.of(owner, "granter.owner");
            if (actor != null) {
                Actor.of(actor, "granter.actor");
            }
        }

        /** The owner as an IdP proof names it (no actor): a write needs any current interactive row of its own. */
        public Owner(String owner) {
            this(owner, null);
        }

        @Override
        public String audit() {
            return actor == null ? "owner " + owner : "owner " + owner + "." + actor;
        }
    }

    /** The space's operator, named for audit by {@code auditId} (the proved subject). */
    record Operator(String auditId) implements Granter {
        private static final Pattern AUDIT = Pattern.compile("[\\x21-\\x7e]{1,128}");

        public Operator {
            if (auditId == null || !AUDIT.matcher(auditId).matches()) {
                throw CotalException.badRequest("granter.auditId", "must be 1 to 128 printable characters without spaces");
            }
        }

        @Override
        public String audit() {
            return "operator " + auditId;
        }
    }
}
