package ai.cotal.core.internal.kv;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.json.ClosedJson;

/**
 * The fence and witness rows of a store the plane alone writes (SPEC §13.13 "Fence rows and
 * lanes"): {@code plane.fence.<k>} {@code {v: 1, generation, claimId}} and
 * {@code plane.witness.<k>} {@code {v: 1, generation}}, k = 0..{@link #LANES}-1. Parsing is
 * closed: anything else is {@code data-loss} naming the key. Stateless.
 */
public final class FenceRows {
    /** Fence rows (and lanes) per store. */
    public static final int LANES = 8;
    private static final int MAX_CLAIM_ID = 128;

    /** A fence row: the generation and claim id of the acquisition that stamped it. */
    public record Fence(Long v, Long generation, String claimId) {
        /** A v1 fence row. */
        public static Fence of(long generation, String claimId) {
            return new Fence(1L, generation, claimId);
        }
    }

    /** A witness row: the generation of the plane whose fenced write it accompanied. */
    public record Witness(Long v, Long generation) {
        /** A v1 witness row. */
        public static Witness of(long generation) {
            return new Witness(1L, generation);
        }
    }

    private FenceRows() {
    }

    /** {@code plane.fence.<k>}. */
    public static String fenceKey(int k) {
        return "plane.fence." + lane(k);
    }

    /** {@code plane.witness.<k>}. */
    public static String witnessKey(int k) {
        return "plane.witness." + lane(k);
    }

    private static int lane(int k) {
        if (k < 0 || k >= LANES) {
            throw new IllegalArgumentException("lane " + k + " is outside 0.." + (LANES - 1));
        }
        return k;
    }

    public static byte[] write(Fence fence) {
        return ClosedJson.write(ClosedJson.cotal(), fence);
    }

    public static byte[] write(Witness witness) {
        return ClosedJson.write(ClosedJson.cotal(), witness);
    }

    /** Reads a fence row stored under {@code key}, closed. */
    public static Fence fence(String bucket, String key, byte[] data) {
        Fence fence;
        try {
            fence = ClosedJson.read(ClosedJson.cotal(), data, Fence.class, key);
        } catch (CotalException e) {
            throw corrupt(bucket, key, e.getMessage());
        }
        if (fence.v() == null || fence.v() != 1 || fence.generation() == null || fence.generation() < 1
                || fence.claimId() == null || fence.claimId().isEmpty() || fence.claimId().length() > MAX_CLAIM_ID) {
            throw corrupt(bucket, key, "not a v1 fence row");
        }
        return fence;
    }

    /** Reads a witness row stored under {@code key}, closed. */
    public static Witness witness(String bucket, String key, byte[] data) {
        Witness witness;
        try {
            witness = ClosedJson.read(ClosedJson.cotal(), data, Witness.class, key);
        } catch (CotalException e) {
            throw corrupt(bucket, key, e.getMessage());
        }
        if (witness.v() == null || witness.v() != 1 || witness.generation() == null || witness.generation() < 1) {
            throw corrupt(bucket, key, "not a v1 witness row");
        }
        return witness;
    }

    private static CotalException corrupt(String bucket, String key, String problem) {
        return new CotalException(ErrorCode.DATA_LOSS, bucket + " " + key + " is corrupt: " + problem);
    }
}
