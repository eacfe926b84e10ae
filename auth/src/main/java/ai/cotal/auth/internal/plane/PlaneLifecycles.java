package ai.cotal.auth.internal.plane;

import ai.cotal.auth.ActorLedger;
import ai.cotal.auth.ActorRow;
import ai.cotal.auth.ConnectAttempt;
import ai.cotal.auth.Lifecycles;
import ai.cotal.auth.internal.plane.LifecycleRows.Stored;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The plane's {@link Lifecycles} (SPEC §14.1), and the lifecycle half of its mints and connect
 * checks: activation (the head follows the ledger) and the freeze a failed boot resume leaves.
 * Each public call first refuses unless the plane is serving. Thread-safe.
 */
final class PlaneLifecycles implements Lifecycles {
    private final Runnable refuseIfUnavailable;
    private final ActorLedger ledger;
    private final LifecycleRows rows;
    private final LifecycleRetirement retirement;
    private final Clock clock;
    private volatile Resume resumed = new Resume(List.of(), List.of());
    /** How many aliases {@link #activeRevision} remembers (past it, it starts over). */
    private static final int SEEN = 4096;
    private record Seen(String uid, long revision) {
    }
    private final java.util.Map<String, Seen> active = new java.util.concurrent.ConcurrentHashMap<>();

    PlaneLifecycles(Runnable refuseIfUnavailable, ActorLedger ledger, LifecycleRows rows, LifecycleRetirement retirement,
            Clock clock) {
        this.refuseIfUnavailable = refuseIfUnavailable;
        this.ledger = ledger;
        this.rows = rows;
        this.retirement = retirement;
        this.clock = clock;
    }

    @Override
    public Retirement retireInteractive(Principal principal, LifecycleUid lifecycleUid) {
        return retire(ActorRow.Kind.INTERACTIVE, principal, lifecycleUid);
    }

    @Override
    public Retirement retireManaged(Principal principal, LifecycleUid lifecycleUid) {
        return retire(ActorRow.Kind.MANAGED, principal, lifecycleUid);
    }

    private Retirement retire(ActorRow.Kind kind, Principal principal, LifecycleUid lifecycleUid) {
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(lifecycleUid, "lifecycleUid");
        refuseIfUnavailable.run();
        return retirement.retire(kind, principal.owner().value(), principal.actor().value(), lifecycleUid.value());
    }

    @Override
    public Activation activateManaged(Principal principal, LifecycleUid lifecycleUid) {
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(lifecycleUid, "lifecycleUid");
        refuseIfUnavailable.run();
        String owner = principal.owner().value();
        String actor = principal.actor().value();
        requireNotFrozen(owner, actor);
        boolean granted = ledger.find(principal).filter(row -> row.kind() == ActorRow.Kind.MANAGED
                && row.lifecycleUid().equals(lifecycleUid)).isPresent();
        if (!granted) {
            throw CotalException.failedPrecondition("the managed grant of " + principal + " is not at lifecycle "
                    + lifecycleUid);
        }
        return activate(ActorRow.Kind.MANAGED, owner, actor, lifecycleUid.value(), () -> { });
    }

    @Override
    public Optional<Head> head(Principal principal) {
        Objects.requireNonNull(principal, "principal");
        refuseIfUnavailable.run();
        return rows.head(principal.owner().value(), principal.actor().value()).map(Stored::value);
    }

    @Override
    public Resume resumedAtOpen() {
        refuseIfUnavailable.run();
        return resumed;
    }

    /**
     * Makes {@code uid} the alias's current lifecycle (SPEC §14.1, activation): decides from the
     * head, runs {@code beforeWrite} once before the first write (a mint charges its budget there),
     * then writes create-only or by CAS; a lost write decides once more.
     */
    Activation activate(ActorRow.Kind kind, String owner, String actor, String uid, Runnable beforeWrite) {
        return activate(kind, owner, actor, uid, beforeWrite, null);
    }

    /** Sends the read of the alias's head now, for a later {@link #activate} that has other work meanwhile. */
    ai.cotal.core.internal.kv.RowStore.PendingRead sendHead(String owner, String actor) {
        return rows.sendHead(owner, actor);
    }

    /** {@link #activate}, its first decision taken from {@code sent} ({@link #sendHead}) when there is one. */
    Activation activate(ActorRow.Kind kind, String owner, String actor, String uid, Runnable beforeWrite,
            ai.cotal.core.internal.kv.RowStore.PendingRead sent) {
        boolean charged = false;
        for (int round = 0; round < 2; round++) {
            Optional<Stored<Head>> read = round == 0 && sent != null ? rows.head(owner, actor, sent)
                    : rows.head(owner, actor);
            if (read.isPresent()) {
                Head head = read.get().value();
                if (head.lifecycleUid().value().equals(uid)) {
                    if (head.state() != State.ACTIVE) {
                        throw CotalException.failedPrecondition("lifecycle " + uid + " of " + owner + "." + actor
                                + " is retired; grant the actor again (a fresh lifecycle)");
                    }
                    if (!charged) {
                        beforeWrite.run(); // nothing to write, but the caller's charge is owed all the same
                    }
                    remember(owner, actor, uid, read.get().revision());
                    return new Activation(false, head);
                }
                if (head.state() == State.RETIRING) {
                    throw new CotalException(ErrorCode.UNAVAILABLE, "a retirement of " + owner + "." + actor
                            + "'s previous lifecycle is in progress; retry shortly");
                }
            }
            if (!charged) {
                beforeWrite.run();
                charged = true;
            }
            Head active = new Head(Principal.of(owner, actor), kind, new LifecycleUid(uid), State.ACTIVE, Optional.empty(),
                    clock.instant().toString());
            Optional<Long> written = read.isEmpty() ? rows.createHead(active)
                    : rows.replaceHead(active, read.get().revision());
            if (written.isPresent()) {
                remember(owner, actor, uid, written.get());
                return new Activation(true, active);
            }
        }
        throw new CotalException(ErrorCode.UNAVAILABLE, "the lifecycle head of " + owner + "." + actor
                + " changed twice while it was activated; retry");
    }

    /**
     * The revision at which this plane last saw the alias's head {@code active} at {@code uid}
     * (read from the leader or written by it); empty when it has seen none. Only a hint: a mint
     * writes on it only under the broker's check that the head is still at that revision.
     */
    java.util.OptionalLong activeRevision(String owner, String actor, String uid) {
        Seen seen = active.get(LifecycleRows.headKey(owner, actor));
        return seen != null && seen.uid().equals(uid) ? java.util.OptionalLong.of(seen.revision())
                : java.util.OptionalLong.empty();
    }

    /** Drops the alias's {@link #activeRevision}: the head moved since. */
    void forget(String owner, String actor) {
        active.remove(LifecycleRows.headKey(owner, actor));
    }

    private void remember(String owner, String actor, String uid, long revision) {
        if (active.size() >= SEEN) {
            active.clear();
        }
        active.put(LifecycleRows.headKey(owner, actor), new Seen(uid, revision));
    }

    /** The plane's half of the connect check: the alias is not frozen by a failed resume. */
    void requireNotFrozen(ConnectAttempt attempt) {
        requireNotFrozen(attempt.principal().owner().value(), attempt.principal().actor().value());
    }

    void requireNotFrozen(String owner, String actor) {
        if (retirement.frozen(owner, actor)) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "actor " + owner + "." + actor + " is frozen: a retirement"
                    + " of its lifecycle did not finish; retire it again");
        }
    }

    void resumed(Resume resume) {
        this.resumed = resume;
    }
}
