package ai.cotal.auth.internal.plane;

import ai.cotal.auth.PlaneClaimRefusal;
import ai.cotal.auth.PlaneClaimRefusal.Reason;
import ai.cotal.auth.internal.connect.AuthorityConnection;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.kv.AtomicBatch;
import ai.cotal.core.internal.kv.FenceLanes;
import ai.cotal.core.internal.kv.FenceRows;
import ai.cotal.core.internal.kv.LeaderGet;
import ai.cotal.core.internal.kv.RowStore;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.Message;
import io.nats.client.api.PublishAck;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;

/**
 * The fence stamps of an acquisition (SPEC §13.13 "Acquisition"): the claim row's write together
 * with the 8 auth fence rows in one atomic batch, then the restamp of another store's fence rows
 * (never lowering a generation), then the read back that gives each store's lanes. Stateless.
 */
final class PlaneFences {
    private static final int WRONG_LAST_SEQUENCE = 10071;
    private static final int CHECK_IN_FLIGHT = 10164;
    private static final int ATOMIC_DISABLED = 10174;
    private static final int RESTAMP_ROUNDS = 3;
    static final Duration ANSWER = Duration.ofSeconds(5);

    /** How a batch ended: landed, a condition failed (moved or in flight), or no answer. */
    enum Result { LANDED, MOVED, NO_ANSWER }

    private PlaneFences() {
    }

    /**
     * The claim row at {@code expected} (0: create-only) and the 8 auth fence rows of
     * {@code generation}, {@code claimId}, as one batch on {@code barrier}.
     */
    static Result acquire(Connection barrier, String bucket, byte[] claimRow, long expected, long generation,
            String claimId) {
        List<AtomicBatch.Put> puts = new ArrayList<>();
        puts.add(new AtomicBatch.Put(PlaneClaim.KEY, AtomicBatch.expecting(expected), claimRow));
        byte[] fence = FenceRows.write(FenceRows.Fence.of(generation, claimId));
        for (int k = 0; k < FenceRows.LANES; k++) {
            puts.add(new AtomicBatch.Put(FenceRows.fenceKey(k), null, fence));
        }
        return send(barrier, bucket, puts);
    }

    /**
     * Stamps {@code bucket}'s 8 fence rows with {@code generation}: reads them ({@code reads}, leader),
     * refuses {@code lost} when one names a higher generation, else writes those not yet this claim's
     * in one batch on {@code writer}, each at the revision read (absent: 0); a lost condition reads again.
     */
    static void restamp(String space, String bucket, RowStore reads, Connection writer, long generation, String claimId) {
        byte[] fence = FenceRows.write(FenceRows.Fence.of(generation, claimId));
        for (int round = 0; round < RESTAMP_ROUNDS; round++) {
            List<AtomicBatch.Put> puts = new ArrayList<>();
            RowStore.PendingRead[] sent = new RowStore.PendingRead[FenceRows.LANES];
            for (int k = 0; k < FenceRows.LANES; k++) { // the eight leader reads go out together
                sent[k] = reads.sendLast(FenceRows.fenceKey(k));
            }
            for (int k = 0; k < FenceRows.LANES; k++) {
                String key = FenceRows.fenceKey(k);
                Optional<RowStore.Row> row = reads.awaitLast(sent[k]);
                long at = row.map(RowStore.Row::revision).orElse(0L);
                if (row.isPresent()) {
                    FenceRows.Fence stamped = FenceRows.fence(reads.stream(), key, row.get().data());
                    if (stamped.generation() > generation || stamped.generation() == generation
                            && !stamped.claimId().equals(claimId)) {
                        throw new PlaneClaimRefusal(Reason.LOST, space, reads.stream() + " " + key + " names generation "
                                + stamped.generation() + ": a later plane stamped it");
                    }
                    if (stamped.generation() == generation) {
                        continue; // this claim's already (a restamp run again)
                    }
                }
                puts.add(new AtomicBatch.Put(key, AtomicBatch.expecting(at), fence));
            }
            if (puts.isEmpty() || send(writer, bucket, puts) == Result.LANDED) {
                return;
            }
        }
        throw new CotalException(ErrorCode.UNAVAILABLE, "cannot stamp the fence rows of " + bucket + " for the plane of"
                + " space \"" + space + "\": they moved " + RESTAMP_ROUNDS + " times; retry shortly");
    }

    /** {@code bucket}'s lanes after its stamp, read back ({@code reads}, leader); a row not this claim's is {@code lost}. */
    static FenceLanes lanes(String space, RowStore reads, long generation, String claimId, Runnable onLost) {
        try {
            return FenceLanes.readBack(reads, generation, claimId, onLost);
        } catch (CotalException e) {
            if (e.code() == ErrorCode.FAILED_PRECONDITION) {
                throw new PlaneClaimRefusal(Reason.LOST, space, e.getMessage());
            }
            throw e;
        }
    }

    /**
     * The writer's fenced writes of {@code bucket} (auth or records) through {@code claim}'s lanes,
     * the fence rows read on the reader after a refusal; answers awaited as the writer's requests are.
     */
    static ai.cotal.core.internal.kv.FencedWrite writes(String bucket, AuthorityConnection writer,
            AuthorityConnection reader, PlaneClaim claim) {
        return new ai.cotal.core.internal.kv.FencedWrite(writer.connection(), new RowStore(reader.connection(), bucket),
                claim.lanes("KV_" + bucket).orElseThrow(() -> new IllegalStateException(bucket + " was not stamped")),
                writer.connection().getOptions().getConnectionTimeout());
    }

    private static Result send(Connection connection, String bucket, List<AtomicBatch.Put> puts) {
        java.util.concurrent.CompletableFuture<Message> sent;
        try {
            sent = AtomicBatch.send(connection, bucket, puts, ANSWER);
        } catch (IllegalStateException e) { // jnats on a closed connection: the batch never commits
            throw new CotalException(ErrorCode.UNAVAILABLE, "cannot write the fence rows of " + bucket
                    + " (the connection is closed)", e);
        }
        Message answer;
        try {
            answer = sent.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Result.NO_ANSWER;
        } catch (ExecutionException | java.util.concurrent.CancellationException e) {
            return Result.NO_ANSWER;
        }
        try {
            new PublishAck(answer);
            return Result.LANDED;
        } catch (IOException e) {
            return Result.NO_ANSWER;
        } catch (JetStreamApiException e) {
            int code = e.getApiErrorCode();
            if (code == WRONG_LAST_SEQUENCE || code == CHECK_IN_FLIGHT) {
                return Result.MOVED;
            }
            if (code == ATOMIC_DISABLED) {
                throw new CotalException(ErrorCode.FAILED_PRECONDITION, "KV_" + bucket
                        + " does not allow atomic publish (allow_atomic false): set the space's stores up again", e);
            }
            throw new CotalException(LeaderGet.unavailable(e) ? ErrorCode.UNAVAILABLE : ErrorCode.FAILED_PRECONDITION,
                    "the broker refused the fence rows of " + bucket + ": " + code + " " + e.getErrorDescription(), e);
        }
    }
}
