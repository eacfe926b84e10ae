package ai.cotal.auth.internal.ledger;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.ConnectAttempt;
import ai.cotal.auth.IdpPin;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import java.util.List;
import java.util.Optional;

/**
 * What a connect check reads of a space's actor ledger (SPEC §13.23), in either placement: the
 * plane's and a callout replica's. Every read is fresh and fails closed (§13.14): a row that
 * cannot be trusted throws, and its connect is refused. Messages name the row's kind and
 * principal, never a path or a key. Thread-safe.
 */
public interface LedgerReads {

    /** A read of a principal's row put on the wire by {@link #send}, taken by {@link #authorizeConnect}. */
    interface Pending {
    }

    /** The pending read of a placement that sends nothing ahead (files: the row is read at the check). */
    Pending NOTHING_SENT = new Pending() {
    };

    /**
     * Puts the read of the principal's row on the wire without waiting for it, so that it travels
     * with the connect check's other reads; a placement that reads locally sends nothing.
     */
    Pending send(Principal principal);

    /**
     * The ledger half of the connect check (SPEC §13.14): the row exists, the requested scope is
     * within the row's and the lifecycle uid is the row's, judged from {@code pending} (a
     * {@link #send} of the attempt's principal on this ledger). Refusals are
     * {@code permission-denied}; an unreadable row is "actor {@code <o>.<a>} has an unreadable
     * ledger row: ...". A read that cannot be answered now is {@code unavailable}.
     */
    ActorRow authorizeConnect(ConnectAttempt attempt, Pending pending);

    /** The principal's row of either kind; empty when absent. A corrupt or ambiguous row throws. */
    Optional<ActorRow> find(Principal principal);

    /** The owner's current interactive rows, in actor order; a row that does not read is left out. */
    List<ActorRow> interactiveRows(Owner owner);

    /** True iff a row exists for the principal at exactly {@code lifecycleUid}; an unreadable row is not live. */
    boolean actorSourceIsLive(Principal principal, LifecycleUid lifecycleUid);

    /** The space's IdP pin, read fresh and re-validated; empty when none. */
    Optional<IdpPin> idpPin();
}
