package ai.cotal.auth;

import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import java.util.List;
import java.util.Optional;

/**
 * The actor ledger of one space (SPEC §13.14), as the plane hands it out
 * ({@link AuthAuthorityPlane#ledger()}): grant an interactive or a managed actor, revoke it, read
 * its row. One row per principal, interactive or managed, never both. Every read is fresh and
 * fails closed: a row that is corrupt, a symbolic link, of the wrong kind, naming another
 * principal, or present in both kinds throws, and a connect of it is refused. Refusals name the
 * row's kind and principal or the directory's role, never a path. Connects are authorized by
 * {@link ConnectCredentials#authorize}, which reads this ledger.
 *
 * <p>Thread-safe for reads; one writer per state directory.
 */
public interface ActorLedger {

    /**
     * Grants (or re-grants) an interactive actor; every grant mints a fresh lifecycle uid.
     *
     * @throws ai.cotal.core.CotalException {@code already-exists} when the principal is in the
     *     managed ledger; a state-file refusal (the row or directory named, no path) when it
     *     cannot be written
     */
    ActorRow grantActor(Principal principal, Grant grant);

    /**
     * Grants a managed actor with the SHA-256 hex of its actor token ({@link ActorTokens#tokenHash})
     * and its lifecycle uid.
     *
     * @throws ai.cotal.core.CotalException {@code bad-request} naming {@code tokenHash}, before
     *     anything is written, when it is not 64 lowercase hex; {@code already-exists} when the
     *     principal is in the interactive ledger
     */
    ActorRow grantManagedActor(Principal principal, Grant grant, String tokenHash, LifecycleUid lifecycleUid);

    /** Removes the principal's row from whichever kind holds it; absent is fine. */
    void revoke(Principal principal);

    /** The principal's row of either kind; empty when absent. A corrupt or ambiguous row throws. */
    Optional<ActorRow> find(Principal principal);

    /**
     * The owner's current interactive rows, in actor order: every row of the owner that
     * {@link #find} reads as interactive. A row that does not read (corrupt, a symbolic link, in
     * both kinds) is not current and is left out. The service-endpoint host asks this of an owner
     * proved without an actor (SPEC §13.1).
     */
    List<ActorRow> interactiveRows(Owner owner);
}
