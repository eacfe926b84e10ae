package ai.cotal.auth.internal.plane;

import ai.cotal.auth.ConnectCredential;
import ai.cotal.auth.ActorRow;
import ai.cotal.auth.ConnectAttempt;
import ai.cotal.auth.ConnectCredentials;
import ai.cotal.auth.internal.connect.AuthorityConnection;
import ai.cotal.auth.internal.connect.AuthorityRole;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.grants.AuthorityGrants;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import ai.cotal.core.internal.kv.StoreNames;
import java.util.List;

/** The plane's {@link ConnectCredentials}: each call first refuses unless the plane is serving. */
final class PlaneCredentials implements ConnectCredentials {
    private final Runnable refuseIfUnavailable;
    private final String space;
    private final ai.cotal.auth.internal.ledger.LedgerBackend ledger;
    private final CredentialRows rows;
    private final WriteBudget budget;
    private final PlaneClaim claim;
    private final AuthorityConnection ledgerScanner;
    private volatile PlaneLifecycles lifecycles;

    PlaneCredentials(Runnable refuseIfUnavailable, String space, ai.cotal.auth.internal.ledger.LedgerBackend ledger, CredentialRows rows,
            WriteBudget budget, PlaneClaim claim, AuthorityConnection ledgerScanner) {
        this.refuseIfUnavailable = refuseIfUnavailable;
        this.space = space;
        this.ledger = ledger;
        this.rows = rows;
        this.budget = budget;
        this.claim = claim;
        this.ledgerScanner = ledgerScanner;
    }

    /** Wires the lifecycles (SPEC §14.1): mints activate their lifecycle, frozen aliases are refused. */
    void lifecycles(PlaneLifecycles lifecycles) {
        this.lifecycles = lifecycles;
    }

    @Override
    public ActorRow authorize(ConnectAttempt attempt) {
        refuseIfUnavailable.run();
        lifecycles.requireNotFrozen(attempt);
        return rows.authorize(ledger, attempt);
    }

    @Override
    public ConnectCredential mint(Principal principal, LifecycleUid uid) {
        refuseIfUnavailable.run();
        java.util.Objects.requireNonNull(principal, "principal");
        java.util.Objects.requireNonNull(uid, "lifecycleUid");
        String owner = principal.owner().value();
        String actor = principal.actor().value();
        String lifecycleUid = uid.value();
        java.util.OptionalLong seen = lifecycles.activeRevision(owner, actor, lifecycleUid);
        // without a head this plane saw active, its leader read travels while the ledger row is read
        ai.cotal.core.internal.kv.RowStore.PendingRead head = seen.isEmpty() ? lifecycles.sendHead(owner, actor) : null;
        ActorRow row = ledger.find(principal).orElseThrow(() -> new CotalException(ErrorCode.PERMISSION_DENIED,
                "actor " + principal + " is not granted"));
        if (!row.lifecycleUid().equals(uid)) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, "actor " + owner + "." + actor
                    + ": lifecycle uid is not the grant's");
        }
        lifecycles.requireNotFrozen(owner, actor);
        Runnable charge = () -> budget.charge(WriteBudget.Kind.MINT, owner, actor);
        if (seen.isPresent()) {
            // decided on the head this plane saw active at the uid; the row lands only if it still stands (§14.1)
            charge.run();
            java.util.Optional<String> id = rows.mintWhileHead(owner, actor, lifecycleUid,
                    LifecycleRows.headKey(owner, actor), seen.getAsLong());
            if (id.isPresent()) {
                return new ConnectCredential(new CredentialId(id.get()), principal, uid);
            }
            lifecycles.forget(owner, actor); // the head moved: decide from the leader, the charge already made
            charge = () -> { };
        }
        // the head follows the ledger (SPEC §14.1); the budget is charged (§13.20) after the head's
        // decision and before anything is written
        lifecycles.activate(row.kind(), owner, actor, lifecycleUid, charge, head);
        return new ConnectCredential(new CredentialId(rows.mint(owner, actor, lifecycleUid)), principal, uid);
    }

    @Override
    public void revoke(CredentialId credentialId) {
        refuseIfUnavailable.run();
        rows.revoke(java.util.Objects.requireNonNull(credentialId, "credentialId").value());
    }

    /** The retirement barrier's credential half (SPEC §14.1): a sealed scan of {@code cred.}, the lifecycle's rows deleted. */
    int revokeLifecycle(String owner, String actor, String uid) {
        return rows.revokeLifecycle(scan("cred."), owner, actor, uid);
    }

    /** The live rows under {@code prefix} of the auth store, key to bytes: a sealed scan, the claim's guard around it. */
    java.util.Map<String, byte[]> scan(String prefix) {
        claim.assertHeld();
        java.util.Map<String, byte[]> scanned = SealedScan.rows(ledgerScanner.connection(), StoreNames.bucket("auth", space),
                prefix, AuthorityGrants.LEDGER_CONSUMER);
        claim.assertHeld();
        return scanned;
    }

    @Override
    public List<CredentialId> list() {
        refuseIfUnavailable.run();
        claim.assertHeld();
        List<String> keys = SealedScan.keys(ledgerScanner.connection(), StoreNames.bucket("auth", space), "cred.",
                AuthorityGrants.LEDGER_CONSUMER);
        claim.assertHeld();
        return keys.stream().map(k -> k.substring("cred.".length())).filter(CredentialId::matches).map(CredentialId::new)
                .toList();
    }
}
