package ai.cotal.core.internal.kv;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.Message;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;

/**
 * A store's fenced writes (SPEC §13.13 "Fenced writes"): each write is a two-message atomic batch
 * on one connection, the witness row of a borrowed lane checked against its fence row's revision
 * ({@code Nats-Expected-Last-Subject-Sequence} with the subject override), then the row itself
 * with its own condition, committing the batch, as a request. The broker stores both or neither.
 * Thread-safe.
 */
public final class FencedWrite {
    private static final int WRONG_LAST_SEQUENCE = 10071;
    private static final int CHECK_IN_FLIGHT = 10164;
    private static final int ATOMIC_DISABLED = 10174;
    private static final int TOO_MANY_BATCHES = 10210;

    /** How a fenced write ended when the broker wrote nothing or the row. */
    public enum Kind {
        /** The batch landed: {@link Outcome#revision()} is the row's. */
        LANDED,
        /** The row's own condition failed (taken, moved); the fence holds. Nothing written. */
        CONDITION_FAILED,
        /** The fence row moved: a later acquisition fenced this plane. Nothing written; the lanes are lost. */
        LOST,
        /** No answer: the batch may or may not have landed. */
        AMBIGUOUS
    }

    /** A fenced write's outcome; {@code revision} is the row's for {@link Kind#LANDED}, else 0. */
    public record Outcome(Kind kind, long revision) {
    }

    private final Connection connection;
    private final RowStore rows;
    private final FenceLanes lanes;
    private final Duration timeout;
    private final byte[] witness;

    /** Fenced writes of {@code rows}' bucket over {@code connection}, through {@code lanes}; answers awaited {@code timeout}. */
    public FencedWrite(Connection connection, RowStore rows, FenceLanes lanes, Duration timeout) {
        this.connection = connection;
        this.rows = rows;
        this.lanes = lanes;
        this.timeout = timeout;
        this.witness = FenceRows.write(FenceRows.Witness.of(lanes.generation()));
    }

    /** The leader reads of this store this write uses (the fence rows after a refusal). */
    public RowStore rows() {
        return rows;
    }

    /**
     * {@link #create} as {@link RowStore#create} answers: the revision, or empty when the key is taken.
     *
     * @throws CotalException {@code unavailable} when the fence moved (the plane lost its claim) or no
     *     answer came (the write may have landed: a create-only or CAS replay decides), and as {@link #write}
     */
    public Optional<Long> createRow(String key, byte[] data) {
        return row(create(key, data), key);
    }

    /** {@link #compareAndSet} as {@link RowStore#compareAndSet} answers, refusing as {@link #createRow} does. */
    public Optional<Long> compareAndSetRow(String key, byte[] data, long revision) {
        return row(compareAndSet(key, data, revision), key);
    }

    private Optional<Long> row(Outcome outcome, String key) {
        switch (outcome.kind()) {
            case LANDED:
                return Optional.of(outcome.revision());
            case CONDITION_FAILED:
                return Optional.empty();
            case LOST:
                throw new CotalException(ErrorCode.UNAVAILABLE, "cannot write " + rows.stream() + " " + key
                        + ": the plane lost its claim (a later plane fenced this one); it must be opened again");
            default:
                throw new CotalException(ErrorCode.UNAVAILABLE, "cannot write " + rows.stream() + " " + key
                        + " (the broker did not answer); retry shortly");
        }
    }

    /** Writes {@code data} only when {@code key} has no message. */
    public Outcome create(String key, byte[] data) {
        return write(key, null, data, 0);
    }

    /** Writes {@code data} only when {@code key}'s last message is {@code revision}. */
    public Outcome compareAndSet(String key, byte[] data, long revision) {
        return write(key, null, data, revision);
    }

    /** A KV delete marker on {@code key} only when its last message is {@code revision}. */
    public Outcome delete(String key, long revision) {
        return write(key, new Headers().put("KV-Operation", "DEL"), new byte[0], revision);
    }

    /**
     * Writes {@code data} on {@code key} with {@code headers} (the row's own, e.g. a TTL or a subject
     * override for its condition; may be null) and, when {@code expected >= 0}, the condition that
     * {@code key}'s (or the override subject's) last message is {@code expected}.
     *
     * @throws CotalException {@code unavailable} when no lane is free, the lanes are lost, the broker
     *     cannot take the write now (10210, a leader election, two checks in flight), or the connection
     *     is closed, nothing sent; {@code failed-precondition} when the store does not allow atomic
     *     publish (10174) or refuses the write otherwise
     */
    public Outcome write(String key, Headers headers, byte[] data, long expected) {
        FenceLanes.Lane lane = lanes.borrow();
        Attempt first = attempt(lane, key, headers, data, expected);
        if (first.code != CHECK_IN_FLIGHT) {
            return first.outcome();
        }
        FenceLanes.Lane other = lanes.borrow(lane.k());
        Attempt second = attempt(other, key, headers, data, expected);
        if (second.code != CHECK_IN_FLIGHT) {
            return second.outcome();
        }
        throw new CotalException(ErrorCode.UNAVAILABLE, "cannot write " + rows.stream() + " " + key
                + " now (another write of it is in flight); retry shortly");
    }

    private record Attempt(Outcome outcome, int code) {
    }

    private Attempt attempt(FenceLanes.Lane lane, String key, Headers rowHeaders, byte[] data, long expected) {
        boolean answered = true;
        try {
            Message answer;
            try {
                answer = send(lane, key, rowHeaders, data, expected);
            } catch (ExecutionException | java.util.concurrent.CancellationException e) {
                answered = false;
                return new Attempt(new Outcome(Kind.AMBIGUOUS, 0), 0);
            }
            try {
                return new Attempt(new Outcome(Kind.LANDED, new PublishAck(answer).getSeqno()), 0);
            } catch (IOException e) { // an answer that is no publish ack: what it did is not known
                return new Attempt(new Outcome(Kind.AMBIGUOUS, 0), 0);
            } catch (JetStreamApiException e) {
                return refused(lane, key, e);
            }
        } finally {
            lanes.giveBack(lane, answered);
        }
    }

    private Message send(FenceLanes.Lane lane, String key, Headers rowHeaders, byte[] data, long expected)
            throws ExecutionException {
        Headers fence = AtomicBatch.expecting(lane.revision())
                .put("Nats-Expected-Last-Subject-Sequence-Subject", subject(FenceRows.fenceKey(lane.k())));
        Headers row = rowHeaders == null ? new Headers() : new Headers(rowHeaders);
        if (expected >= 0) {
            row.put("Nats-Expected-Last-Subject-Sequence", Long.toString(expected));
        }
        java.util.concurrent.CompletableFuture<Message> answer;
        try {
            answer = AtomicBatch.send(connection, lanes.bucket(), java.util.List.of(
                    new AtomicBatch.Put(FenceRows.witnessKey(lane.k()), fence, witness),
                    new AtomicBatch.Put(key, row, data)), timeout);
        } catch (IllegalStateException e) { // jnats on a closed connection: the batch never commits
            throw new CotalException(ErrorCode.UNAVAILABLE, "cannot write " + rows.stream() + " " + key
                    + " (the connection is closed)", e);
        }
        try {
            return answer.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ExecutionException(e);
        }
    }

    private Attempt refused(FenceLanes.Lane lane, String key, JetStreamApiException e) {
        int code = e.getApiErrorCode();
        if (code == WRONG_LAST_SEQUENCE) {
            long now = rows.last(FenceRows.fenceKey(lane.k())).map(RowStore.Row::revision).orElse(0L);
            if (now == lane.revision()) {
                return new Attempt(new Outcome(Kind.CONDITION_FAILED, 0), code);
            }
            lanes.lose();
            return new Attempt(new Outcome(Kind.LOST, 0), code);
        }
        if (code == CHECK_IN_FLIGHT) {
            return new Attempt(null, code);
        }
        if (code == ATOMIC_DISABLED) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, rows.stream()
                    + " does not allow atomic publish (allow_atomic false): set the space's stores up again", e);
        }
        if (code == TOO_MANY_BATCHES || LeaderGet.unavailable(e)) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "cannot write " + rows.stream() + " " + key + " now ("
                    + code + " " + e.getErrorDescription() + "); retry shortly", e);
        }
        throw new CotalException(ErrorCode.FAILED_PRECONDITION, "the broker refused a write to " + rows.stream() + " "
                + key + ": " + code + " " + e.getErrorDescription(), e);
    }

    private String subject(String key) {
        return "$KV." + lanes.bucket() + "." + key;
    }
}
