package ai.cotal.auth.internal.plane;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.Lifecycles;
import ai.cotal.auth.Lifecycles.Head;
import ai.cotal.auth.Lifecycles.State;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.Actor;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.core.internal.kv.RowStore;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The lifecycle records of SPEC §14.1 in {@code cotal_auth_<space>}: heads
 * {@code lifecycle.head.<owner>.<actor>} and retirement operations {@code lifecycle.op.<opId>},
 * closed JSON version 1, written create-only or by CAS on the barrier connection and read from the
 * stream leader. A row that breaks a rule is {@code data-loss}, never absent. Thread-safe.
 */
final class LifecycleRows {
    static final String HEAD = "lifecycle.head.";
    static final String OP = "lifecycle.op.";
    private static final Pattern OP_ID = Pattern.compile("[0-9a-f]{26}");

    /** A row as read, with its revision (the stream sequence a CAS names). */
    record Stored<T>(T value, long revision) {
    }

    /** A retirement operation. */
    record Op(String opId, ActorRow.Kind kind, String owner, String actor, String uid, boolean done,
            String requestedAt) {
        String alias() {
            return owner + "." + actor;
        }
    }

    private record HeadDocument(Integer v, String owner, String actor, String kind, String uid, String state, String opId,
            String at) {
    }

    private record OpDocument(Integer v, String opId, String kind, String owner, String actor, String uid, String state,
            String requestedAt, String doneAt) {
    }

    private final RowStore rows;

    LifecycleRows(RowStore rows) {
        this.rows = rows;
    }

    /** The last parse of each head: a connect check reads the head each time, and it rarely changes. */
    private static final ai.cotal.core.internal.json.ParseMemo<Head> HEADS = new ai.cotal.core.internal.json.ParseMemo<>(4096);

    static String headKey(String owner, String actor) {
        return HEAD + owner + "." + actor;
    }

    static String opKey(String opId) {
        return OP + opId;
    }

    /** The operation id of retiring {@code uid} of {@code kind}. */
    static String opId(ActorRow.Kind kind, String uid) {
        return kind == ActorRow.Kind.INTERACTIVE ? Lifecycles.interactiveRetirementOpId(uid)
                : Lifecycles.managedRetirementOpId(uid);
    }

    Optional<Stored<Head>> head(String owner, String actor) {
        return rows.last(headKey(owner, actor)).map(r -> new Stored<>(parseHead(owner, actor, r.data()), r.revision()));
    }

    /** Sends the head's read now ({@link RowStore#sendLast}); {@link #head(String, String, RowStore.PendingRead)} takes it. */
    RowStore.PendingRead sendHead(String owner, String actor) {
        return rows.sendLast(headKey(owner, actor));
    }

    /** {@link #head(String, String)}'s answer for a read {@link #sendHead} sent. */
    Optional<Stored<Head>> head(String owner, String actor, RowStore.PendingRead read) {
        return rows.awaitLast(read).map(r -> new Stored<>(parseHead(owner, actor, r.data()), r.revision()));
    }

    Optional<Long> createHead(Head head) {
        return rows.create(headKey(head.principal().owner().value(), head.principal().actor().value()), write(head));
    }

    Optional<Long> replaceHead(Head head, long revision) {
        return rows.compareAndSet(headKey(head.principal().owner().value(), head.principal().actor().value()), write(head),
                revision);
    }

    Optional<Stored<Op>> op(String opId) {
        return rows.last(opKey(opId)).map(r -> new Stored<>(parseOp(opId, r.data()), r.revision()));
    }

    Optional<Long> createOp(Op op) {
        return rows.create(opKey(op.opId()), write(op, null));
    }

    Optional<Long> finishOp(Op op, String doneAt, long revision) {
        return rows.compareAndSet(opKey(op.opId()), write(new Op(op.opId(), op.kind(), op.owner(), op.actor(), op.uid(),
                true, op.requestedAt()), doneAt), revision);
    }

    /** The head stored at {@code lifecycle.head.<owner>.<actor>}; {@code data-loss} when it breaks a rule. */
    static Head parseHead(String owner, String actor, byte[] data) {
        String key = headKey(owner, actor);
        return HEADS.parse(key, data, bytes -> parseHead(key, owner, actor, bytes)); // a head read at every connect
    }

    private static Head parseHead(String key, String owner, String actor, byte[] data) {
        HeadDocument d;
        try {
            d = ClosedJson.read(ClosedJson.cotal(), data, HeadDocument.class, key);
        } catch (CotalException e) {
            throw corrupt(key, e.getMessage());
        }
        if (d.v() == null || d.v() != 1 || !owner.equals(d.owner()) || !actor.equals(d.actor())) {
            throw corrupt(key, "version or alias");
        }
        ActorRow.Kind kind = kind(key, d.kind());
        State state = switch (String.valueOf(d.state())) {
            case "active" -> State.ACTIVE;
            case "retiring" -> State.RETIRING;
            case "retired" -> State.RETIRED;
            default -> throw corrupt(key, "state");
        };
        if (d.uid() == null || !LifecycleUid.matches(d.uid()) || !ClosedJson.isInstant(d.at())) {
            throw corrupt(key, "uid or at");
        }
        if ((state == State.ACTIVE) != (d.opId() == null)) {
            throw corrupt(key, "an active head carries no opId, any other carries one");
        }
        if (d.opId() != null && !d.opId().equals(opId(kind, d.uid()))) {
            throw corrupt(key, "opId is not its lifecycle's retirement");
        }
        return new Head(Principal.of(owner, actor), kind, new LifecycleUid(d.uid()), state, Optional.ofNullable(d.opId()),
                d.at());
    }

    /** The operation stored at {@code lifecycle.op.<opId>}; {@code data-loss} when it breaks a rule. */
    static Op parseOp(String opId, byte[] data) {
        String key = opKey(opId);
        OpDocument d;
        try {
            d = ClosedJson.read(ClosedJson.cotal(), data, OpDocument.class, key);
        } catch (CotalException e) {
            throw corrupt(key, e.getMessage());
        }
        if (d.v() == null || d.v() != 1 || !opId.equals(d.opId())) {
            throw corrupt(key, "version or opId");
        }
        ActorRow.Kind kind = switch (String.valueOf(d.kind())) {
            case "interactive-retirement" -> ActorRow.Kind.INTERACTIVE;
            case "managed-retirement" -> ActorRow.Kind.MANAGED;
            default -> throw corrupt(key, "kind");
        };
        if (d.owner() == null || !Owner.matches(d.owner()) || d.actor() == null
                || !Actor.matches(d.actor()) || d.uid() == null || !LifecycleUid.matches(d.uid())
                || !opId.equals(opId(kind, d.uid())) || !ClosedJson.isInstant(d.requestedAt())) {
            throw corrupt(key, "alias, uid or requestedAt");
        }
        boolean done = switch (String.valueOf(d.state())) {
            case "pending" -> false;
            case "done" -> true;
            default -> throw corrupt(key, "state");
        };
        if (done != (d.doneAt() != null) || (done && !ClosedJson.isInstant(d.doneAt()))) {
            throw corrupt(key, "doneAt exactly when done");
        }
        return new Op(opId, kind, d.owner(), d.actor(), d.uid(), done, d.requestedAt());
    }

    /** The operation id a scanned key names; {@code data-loss} when it is not one. */
    static String opIdOf(String key) {
        String id = key.startsWith(OP) ? key.substring(OP.length()) : "";
        if (!OP_ID.matcher(id).matches()) {
            throw corrupt(key, "not an operation key");
        }
        return id;
    }

    static byte[] write(Head head) {
        return ClosedJson.write(ClosedJson.cotal(), new HeadDocument(1, head.principal().owner().value(),
                head.principal().actor().value(), kindWire(head.kind()), head.lifecycleUid().value(), head.state().wire(), head.opId().orElse(null), head.at()));
    }

    static byte[] write(Op op, String doneAt) {
        return ClosedJson.write(ClosedJson.cotal(), new OpDocument(1, op.opId(), kindWire(op.kind()) + "-retirement",
                op.owner(), op.actor(), op.uid(), op.done() ? "done" : "pending", op.requestedAt(), doneAt));
    }

    static String kindWire(ActorRow.Kind kind) {
        return kind.name().toLowerCase(Locale.ROOT);
    }

    private static ActorRow.Kind kind(String key, String wire) {
        return switch (String.valueOf(wire)) {
            case "interactive" -> ActorRow.Kind.INTERACTIVE;
            case "managed" -> ActorRow.Kind.MANAGED;
            default -> throw corrupt(key, "kind");
        };
    }

    private static CotalException corrupt(String key, String why) {
        return new CotalException(ErrorCode.DATA_LOSS, "the lifecycle record " + key + " is corrupt (" + why + ")");
    }
}
