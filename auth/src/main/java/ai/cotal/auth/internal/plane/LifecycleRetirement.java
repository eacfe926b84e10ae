package ai.cotal.auth.internal.plane;

import ai.cotal.auth.ActorLedger;
import ai.cotal.auth.ActorRow;
import ai.cotal.auth.Lifecycles.Head;
import ai.cotal.auth.Lifecycles.Resume;
import ai.cotal.auth.Lifecycles.Retirement;
import ai.cotal.auth.Lifecycles.Retirement.Outcome;
import ai.cotal.auth.Lifecycles.State;
import ai.cotal.auth.internal.callout.LiveConnection;
import ai.cotal.auth.internal.plane.LifecycleRows.Op;
import ai.cotal.auth.internal.plane.LifecycleRows.Stored;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import ai.cotal.servicehost.HostResult;
import java.time.Clock;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retires lifecycles (SPEC §14.1): decide from the head, then intent (the op row, create-only),
 * fence (head CAS to {@code retiring}), barrier (credential rows deleted, live connections
 * kicked), retire (head CAS to {@code retired}), done (op CAS). Every step is create-only or a CAS,
 * so a replay or the boot crash-resume finishes the same operation. One flight per operation in
 * the process. Thread-safe.
 */
final class LifecycleRetirement {
    private static final Logger LOG = LoggerFactory.getLogger(LifecycleRetirement.class);

    /** Seams where a test acts between the steps of a retirement. Production uses {@link #NONE}. */
    interface Hooks {
        Hooks NONE = new Hooks() {
        };

        /** After the head was fenced ({@code retiring}), before the barrier. */
        default void afterFence(String opId) {
        }
    }

    /** Deletes the live credential rows of one lifecycle; answers how many. */
    interface CredentialBarrier {
        int revoke(String owner, String actor, String uid);
    }

    private final String space;
    private final LifecycleRows rows;
    private final ActorLedger ledger;
    private final CredentialBarrier credentials;
    private final LifecycleConnections connections;
    private final ConnectionSweep sweep;
    private final ConnectionEvictor evictor;
    private final Clock clock;
    private final Set<String> frozen = ConcurrentHashMap.newKeySet();
    private final ConcurrentHashMap<String, CompletableFuture<Retirement>> flights = new ConcurrentHashMap<>();
    private volatile Hooks hooks = Hooks.NONE;

    LifecycleRetirement(String space, LifecycleRows rows, ActorLedger ledger, CredentialBarrier credentials,
            LifecycleConnections connections, ConnectionSweep sweep, ConnectionEvictor evictor, Clock clock) {
        this.space = space;
        this.rows = rows;
        this.ledger = ledger;
        this.credentials = credentials;
        this.connections = connections;
        this.sweep = sweep;
        this.evictor = evictor;
        this.clock = clock;
    }

    void hooks(Hooks hooks) {
        this.hooks = hooks;
    }

    /** Whether a failed boot resume froze {@code <owner>.<actor>}. */
    boolean frozen(String owner, String actor) {
        return frozen.contains(owner + "." + actor);
    }

    /** Steps 1 to 8 of SPEC §14.1 for a checked owner, actor and uid. */
    Retirement retire(ActorRow.Kind kind, String owner, String actor, String uid) {
        Optional<Stored<Head>> read = rows.head(owner, actor);
        if (read.isEmpty()) {
            return answer(Outcome.NOT_STARTED, owner, actor, uid, null);
        }
        Head head = read.get().value();
        if (!head.lifecycleUid().value().equals(uid)) {
            return answer(head.state() == State.RETIRED ? Outcome.NOT_STARTED : Outcome.CONFLICT, owner, actor, uid, null);
        }
        if (head.kind() != kind) {
            throw CotalException.failedPrecondition("lifecycle " + uid + " of " + owner + "." + actor + " is "
                    + LifecycleRows.kindWire(head.kind()) + "; retire it as such");
        }
        if (head.state() == State.RETIRED) {
            return answer(Outcome.ALREADY_RETIRED, owner, actor, uid, head.opId().orElseThrow());
        }
        if (kind == ActorRow.Kind.MANAGED && ledger.find(Principal.of(owner, actor))
                .filter(row -> row.kind() == ActorRow.Kind.MANAGED && row.lifecycleUid().value().equals(uid)).isPresent()) {
            throw CotalException.failedPrecondition("the managed grant of " + owner + "." + actor
                    + " is still at lifecycle " + uid + "; revoke or re-grant the actor first");
        }
        String opId = LifecycleRows.opId(kind, uid);
        return inFlight(opId, () -> intendAndRun(new Op(opId, kind, owner, actor, uid, false,
                clock.instant().toString())));
    }

    /** One flight per operation: a second caller waits for the first and answers what it answers. */
    private Retirement inFlight(String opId, java.util.function.Supplier<Retirement> work) {
        CompletableFuture<Retirement> mine = new CompletableFuture<>();
        CompletableFuture<Retirement> running = flights.putIfAbsent(opId, mine);
        if (running != null) {
            try {
                return running.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CotalException(ErrorCode.UNAVAILABLE, "interrupted while a retirement ran; retry", e);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof RuntimeException r ? r : CotalException.internal("retirement failed", e);
            }
        }
        try {
            Retirement result = work.get();
            mine.complete(result);
            return result;
        } catch (RuntimeException e) {
            mine.completeExceptionally(e);
            throw e;
        } finally {
            flights.remove(opId, mine);
        }
    }

    /** Step 3, then the rest. */
    private Retirement intendAndRun(Op intent) {
        Stored<Op> op;
        if (rows.createOp(intent).isPresent()) {
            op = rows.op(intent.opId()).orElseThrow(() -> new CotalException(ErrorCode.UNAVAILABLE,
                    "the retirement " + intent.opId() + " was written but does not read back; retry"));
        } else {
            op = rows.op(intent.opId()).orElseThrow(() -> new CotalException(ErrorCode.UNAVAILABLE,
                    "the retirement " + intent.opId() + " changed while it was written; retry"));
            Op there = op.value();
            if (there.kind() != intent.kind() || !there.owner().equals(intent.owner())
                    || !there.actor().equals(intent.actor()) || !there.uid().equals(intent.uid())) {
                throw new CotalException(ErrorCode.DATA_LOSS, "the lifecycle record " + LifecycleRows.opKey(intent.opId())
                        + " names another retirement");
            }
            if (there.done()) {
                return answer(Outcome.ALREADY_RETIRED, there.owner(), there.actor(), there.uid(), there.opId());
            }
        }
        return run(op);
    }

    /** Steps 4 to 8 for a pending operation: the request's path and the boot resume's. */
    Retirement run(Stored<Op> stored) {
        Op op = stored.value();
        Optional<Stored<Head>> head = fence(op);
        hooks.afterFence(op.opId());
        int revoked = credentials.revoke(op.owner(), op.actor(), op.uid());
        HostResult.LiveConnections closed = closeConnections(op);
        head.ifPresent(h -> retireHead(op, h));
        if (rows.finishOp(op, clock.instant().toString(), stored.revision()).isEmpty()) {
            Op now = rows.op(op.opId()).map(Stored::value).orElse(op);
            if (!now.done()) {
                throw new CotalException(ErrorCode.UNAVAILABLE, "the retirement " + op.opId()
                        + " changed while it finished; retry");
            }
        }
        frozen.remove(op.alias());
        LOG.info("auth-plane: space {}: retired lifecycle {} of {} ({}; {} credential row(s) deleted, {} connection(s)"
                + " closed, broker swept: {})", space, op.uid(), op.alias(), op.opId(), revoked, closed.closed(),
                closed.swept());
        return new Retirement(Outcome.RETIRED, Principal.of(op.owner(), op.actor()), new LifecycleUid(op.uid()),
                Optional.of(op.opId()), revoked,
                closed.closed(), closed.swept());
    }

    /**
     * Step 4: the head at the op's uid, {@code retiring} by it. Empty when the head moved to another
     * uid (superseded): the barrier still runs, the head is left as it is.
     */
    private Optional<Stored<Head>> fence(Op op) {
        for (int round = 0; round < 2; round++) {
            Stored<Head> stored = rows.head(op.owner(), op.actor()).orElseThrow(() -> new CotalException(
                    ErrorCode.DATA_LOSS, "the retirement " + op.opId() + " of " + op.alias() + " has no lifecycle head"));
            Head head = stored.value();
            if (!head.lifecycleUid().value().equals(op.uid())) {
                return Optional.empty();
            }
            if (head.kind() != op.kind() || (head.state() != State.ACTIVE
                    && !head.opId().orElseThrow().equals(op.opId()))) {
                throw new CotalException(ErrorCode.DATA_LOSS, "the lifecycle head of " + op.alias()
                        + " disagrees with its retirement " + op.opId());
            }
            if (head.state() != State.ACTIVE) {
                return Optional.of(stored);
            }
            Head retiring = new Head(Principal.of(op.owner(), op.actor()), op.kind(), new LifecycleUid(op.uid()),
                    State.RETIRING, Optional.of(op.opId()),
                    clock.instant().toString());
            Optional<Long> written = rows.replaceHead(retiring, stored.revision());
            if (written.isPresent()) {
                return Optional.of(new Stored<>(retiring, written.get()));
            }
        }
        throw new CotalException(ErrorCode.UNAVAILABLE, "the lifecycle head of " + op.alias()
                + " changed twice while the retirement " + op.opId() + " fenced it; retry");
    }

    /**
     * The connections half of the barrier (step 5): the register's mark, then every connection it
     * recorded at the lifecycle and every one the broker lists under the lifecycle key (an earlier
     * plane's, a replica's), kicked; each must be closed.
     */
    private HostResult.LiveConnections closeConnections(Op op) {
        LifecycleConnections.Marked marked = connections.mark(op.owner(), op.actor(), op.uid());
        Set<ConnectionEvictor.Target> targets = new LinkedHashSet<>();
        marked.connections().forEach(c -> targets.add(new ConnectionEvictor.Target(c.serverId(), c.clientId())));
        ConnectionSweep.Found found = sweep.find(LiveConnection.lifecycleKey(op.uid()));
        targets.addAll(found.connections());
        if (!found.complete() && marked.unknownUntil() > clock.instant().getEpochSecond()) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "the retirement of " + op.alias() + " at lifecycle "
                    + op.uid() + " waits for connection(s) the register could not keep and the broker did not list"
                    + " (until " + java.time.Instant.ofEpochSecond(marked.unknownUntil()) + "); retry then");
        }
        HostResult.LiveConnections kicked = evictor.kick(targets, found.complete());
        if (kicked.open() > 0) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "the retirement of " + op.alias() + " at lifecycle "
                    + op.uid() + " waits for " + kicked.open() + " live connection(s) the broker did not close ("
                    + kicked.unclosed().wire() + "); retry");
        }
        connections.closed(marked.connections());
        return kicked;
    }

    /** Step 6. */
    private void retireHead(Op op, Stored<Head> fenced) {
        if (fenced.value().state() == State.RETIRED) {
            return;
        }
        Head retired = new Head(Principal.of(op.owner(), op.actor()), op.kind(), new LifecycleUid(op.uid()),
                State.RETIRED, Optional.of(op.opId()),
                clock.instant().toString());
        if (rows.replaceHead(retired, fenced.revision()).isEmpty()) {
            Head now = rows.head(op.owner(), op.actor()).map(Stored::value).orElse(null);
            if (now == null || now.state() != State.RETIRED || !now.lifecycleUid().value().equals(op.uid())) {
                throw new CotalException(ErrorCode.UNAVAILABLE, "the lifecycle head of " + op.alias()
                        + " changed while the retirement " + op.opId() + " retired it; retry");
            }
        }
    }

    /**
     * The boot crash-resume (SPEC §14.1). {@code scan} answers the op rows (key to bytes); every one
     * must parse, else {@code data-loss} fails the open. Each pending op runs from step 4, its row
     * read again from the leader for the revision its CAS names; one that fails is logged and
     * freezes its alias, the others go on.
     */
    Resume resumeAtOpen(java.util.function.Supplier<java.util.Map<String, byte[]>> scan) {
        List<String> pending = new java.util.ArrayList<>();
        for (java.util.Map.Entry<String, byte[]> entry : scan.get().entrySet()) {
            String opId = LifecycleRows.opIdOf(entry.getKey());
            if (!LifecycleRows.parseOp(opId, entry.getValue()).done()) {
                pending.add(opId);
            }
        }
        List<String> finished = new java.util.ArrayList<>();
        for (String opId : pending) {
            Op op = null;
            try {
                Stored<Op> stored = rows.op(opId).orElseThrow(() -> new CotalException(ErrorCode.DATA_LOSS,
                        "the lifecycle record " + LifecycleRows.opKey(opId) + " vanished"));
                op = stored.value();
                if (!op.done()) {
                    run(stored);
                    finished.add(opId);
                }
            } catch (RuntimeException e) {
                String alias = op == null ? "(unread)" : op.alias();
                if (op != null) {
                    frozen.add(alias);
                }
                LOG.error("auth-plane: space {}: the retirement {} of {} at lifecycle {} did not finish at open ({}); {}"
                        + " stays frozen until that lifecycle is retired again", space, opId, alias,
                        op == null ? "?" : op.uid(), e.getMessage(), alias);
            }
        }
        if (!pending.isEmpty()) {
            LOG.info("auth-plane: space {}: boot crash-resume finished {} of {} owed retirement(s)", space,
                    finished.size(), pending.size());
        }
        return new Resume(finished, frozen.stream().sorted().toList());
    }

    private static Retirement answer(Outcome outcome, String owner, String actor, String uid, String opId) {
        return new Retirement(outcome, Principal.of(owner, actor), new LifecycleUid(uid), Optional.ofNullable(opId), 0, 0,
                false);
    }
}
