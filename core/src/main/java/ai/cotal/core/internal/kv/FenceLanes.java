package ai.cotal.core.internal.kv;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One store's fence lanes (SPEC §13.13 "Fence rows and lanes"): per lane k the revision
 * {@code r_k} of its fence row, fixed within the plane's generation. A fenced write borrows a free
 * lane (waiting at most {@link #BORROW_WAIT}, then {@code unavailable}) and gives it back on its
 * answer; a lane whose batch ended without an answer rests {@link #REST} first, so no two batches
 * of one lane are ever in flight. Once a write found the fence moved the lanes are lost for good:
 * every borrow refuses {@code unavailable}, and the listener given at construction ran once.
 * Thread-safe.
 */
public final class FenceLanes {
    /** How long a borrow waits for a free lane. */
    public static final Duration BORROW_WAIT = Duration.ofSeconds(1);
    /** How long a lane rests after a batch that ended without an answer. */
    public static final Duration REST = Duration.ofSeconds(2);

    /** A borrowed lane: its index and its fence row's revision. */
    public record Lane(int k, long revision) {
    }

    private final String bucket;
    private final long generation;
    private final long[] revisions;
    private final boolean[] busy = new boolean[FenceRows.LANES];
    private final long[] restUntil = new long[FenceRows.LANES];
    private final long borrowWait;
    private final long rest;
    private final Runnable onLost;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition freed = lock.newCondition();
    private int next;
    private boolean lost;

    FenceLanes(String bucket, long generation, long[] revisions, Duration borrowWait, Duration rest, Runnable onLost) {
        if (revisions.length != FenceRows.LANES) {
            throw new IllegalArgumentException("a store has " + FenceRows.LANES + " fence lanes, not " + revisions.length);
        }
        this.bucket = bucket;
        this.generation = generation;
        this.revisions = revisions.clone();
        this.borrowWait = borrowWait.toNanos();
        this.rest = rest.toNanos();
        this.onLost = onLost;
    }

    /** The lanes of {@code bucket} for the plane of {@code generation}, at the fence revisions read back. */
    public static FenceLanes of(String bucket, long generation, long[] revisions, Runnable onLost) {
        return new FenceLanes(bucket, generation, revisions, BORROW_WAIT, REST, onLost);
    }

    /**
     * Reads the store's fence rows back (leader reads) after a restamp: each must name
     * {@code generation} and {@code claimId}, and its revision becomes its lane's {@code r_k}.
     *
     * @throws CotalException {@code failed-precondition} when a fence row is absent or names another
     *     claim (the claim is lost); {@code unavailable} when a row cannot be read now;
     *     {@code data-loss} when one is corrupt
     */
    public static FenceLanes readBack(RowStore rows, long generation, String claimId, Runnable onLost) {
        long[] revisions = new long[FenceRows.LANES];
        RowStore.PendingRead[] sent = new RowStore.PendingRead[FenceRows.LANES];
        for (int k = 0; k < FenceRows.LANES; k++) { // the eight leader reads go out together
            sent[k] = rows.sendLast(FenceRows.fenceKey(k));
        }
        for (int k = 0; k < FenceRows.LANES; k++) {
            String key = FenceRows.fenceKey(k);
            RowStore.Row row = rows.awaitLast(sent[k]).orElseThrow(() -> CotalException.failedPrecondition(
                    rows.stream() + " " + key + " is absent: the store was not stamped for this claim"));
            FenceRows.Fence fence = FenceRows.fence(rows.stream(), key, row.data());
            if (fence.generation() != generation || !fence.claimId().equals(claimId)) {
                throw CotalException.failedPrecondition(rows.stream() + " " + key + " names generation "
                        + fence.generation() + ", not this claim's " + generation + ": the claim is lost");
            }
            revisions[k] = row.revision();
        }
        return of(rows.stream().substring("KV_".length()), generation, revisions, onLost);
    }

    public String bucket() {
        return bucket;
    }

    public long generation() {
        return generation;
    }

    /** A free lane; waits at most {@link #BORROW_WAIT}. */
    public Lane borrow() {
        return borrow(-1);
    }

    /**
     * A free lane other than {@code avoid} (the lane a refused batch used; -1: any).
     *
     * @throws CotalException {@code unavailable} when none is free in time, the lanes are lost, or the
     *     thread was interrupted
     */
    public Lane borrow(int avoid) {
        lock.lock();
        try {
            long deadline = System.nanoTime() + borrowWait;
            while (true) {
                if (lost) {
                    throw new CotalException(ErrorCode.UNAVAILABLE, "the plane lost its claim: " + bucket
                            + " is fenced by a later generation");
                }
                long now = System.nanoTime();
                long wake = deadline;
                for (int i = 0; i < FenceRows.LANES; i++) {
                    int k = (next + i) % FenceRows.LANES;
                    if (k == avoid || busy[k]) {
                        continue;
                    }
                    if (restUntil[k] - now <= 0) {
                        busy[k] = true;
                        next = (k + 1) % FenceRows.LANES;
                        return new Lane(k, revisions[k]);
                    }
                    wake = restUntil[k] - wake < 0 ? restUntil[k] : wake;
                }
                if (deadline - now <= 0) {
                    throw new CotalException(ErrorCode.UNAVAILABLE, "no fence lane of " + bucket + " was free within "
                            + BORROW_WAIT.toMillis() + " ms; retry shortly");
                }
                freed.awaitNanos(Math.max(1, wake - now));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CotalException(ErrorCode.UNAVAILABLE, "interrupted while waiting for a fence lane of " + bucket, e);
        } finally {
            lock.unlock();
        }
    }

    /** Gives {@code lane} back: free at once when its batch was answered, else after {@link #REST}. */
    public void giveBack(Lane lane, boolean answered) {
        lock.lock();
        try {
            busy[lane.k()] = false;
            if (!answered) {
                restUntil[lane.k()] = System.nanoTime() + rest;
            }
            freed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Marks the lanes lost (a write found its fence row moved); the listener runs once. */
    public void lose() {
        boolean first;
        lock.lock();
        try {
            first = !lost;
            lost = true;
            freed.signalAll();
        } finally {
            lock.unlock();
        }
        if (first && onLost != null) {
            onLost.run();
        }
    }

    public boolean lost() {
        lock.lock();
        try {
            return lost;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "FenceLanes[" + bucket + ", generation " + generation + "]";
    }
}
