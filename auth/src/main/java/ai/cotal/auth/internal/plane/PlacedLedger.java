package ai.cotal.auth.internal.plane;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.ConnectAttempt;
import ai.cotal.auth.Grant;
import ai.cotal.auth.IdpPin;
import ai.cotal.auth.internal.ledger.LedgerBackend;
import ai.cotal.auth.internal.ledger.Placement;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The plane's {@code ledger()} facet (SPEC §13.23): every call goes to the backend of the
 * placement the plane opened on, files or store. The backend is read once per call, so a later
 * move swaps it in one place ({@link #current}): the move's grant fence and its dual revokes
 * belong here, around the writes, and are not built. Thread-safe.
 */
public final class PlacedLedger implements LedgerBackend {
    private volatile LedgerBackend current;

    /** The facet over {@code backend}, the placement the open settled on. */
    public PlacedLedger(LedgerBackend backend) {
        this.current = Objects.requireNonNull(backend, "backend");
    }

    /** The backend every call goes to now (the seam a move switches). */
    LedgerBackend current() {
        return current;
    }

    @Override
    public Pending send(Principal principal) {
        return current.send(principal);
    }

    @Override
    public ActorRow authorizeConnect(ConnectAttempt attempt, Pending pending) {
        return current.authorizeConnect(attempt, pending);
    }

    @Override
    public Optional<ActorRow> find(Principal principal) {
        return current.find(principal);
    }

    @Override
    public List<ActorRow> interactiveRows(Owner owner) {
        return current.interactiveRows(owner);
    }

    @Override
    public boolean actorSourceIsLive(Principal principal, LifecycleUid lifecycleUid) {
        return current.actorSourceIsLive(principal, lifecycleUid);
    }

    @Override
    public Optional<IdpPin> idpPin() {
        return current.idpPin();
    }

    @Override
    public ActorRow grantActor(Principal principal, Grant grant) {
        return current.grantActor(principal, grant);
    }

    @Override
    public ActorRow grantManagedActor(Principal principal, Grant grant, String tokenHash, LifecycleUid lifecycleUid) {
        return current.grantManagedActor(principal, grant, tokenHash, lifecycleUid);
    }

    @Override
    public void revoke(Principal principal) {
        current.revoke(principal);
    }

    @Override
    public IdpPin pinStock(String url) {
        return current.pinStock(url);
    }

    @Override
    public IdpPin pinOidc(String issuer, String clientId, List<String> algorithms) {
        return current.pinOidc(issuer, clientId, algorithms);
    }

    @Override
    public Placement placement() {
        return current.placement();
    }
}
