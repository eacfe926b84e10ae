package ai.cotal.auth.internal.plane;

import ai.cotal.auth.ConnTuple;
import ai.cotal.auth.LivenessOracle;
import ai.cotal.auth.PlaneClaimRefusal;
import ai.cotal.auth.PlaneClaimRefusal.Reason;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.keys.NKeyPair;
import ai.cotal.core.internal.kv.RowStore;
import ai.cotal.core.internal.kv.RowStore.Row;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plane claim (SPEC §13.13): the {@code plane} key of {@code cotal_auth_<space>}, written only
 * by the barrier connection. One holder per space; a held row is reclaimed only when the liveness
 * oracle proves both recorded scanner connections gone under a complete sweep; a refusal for want
 * of proof names the servers that gave none. Thread-safe.
 */
final class PlaneClaim {
    static final String KEY = "plane";
    private static final Logger LOG = LoggerFactory.getLogger(PlaneClaim.class);

    /** The row as stored: closed, version 2 (a version 1 row is read as version 2 without a lease). */
    record Document(Integer v, Long generation, String claimId, String state, TupleDocument ledger,
            TupleDocument records, String openedAt, Lease lease) {
    }

    /** A lease holder's promise (SPEC §13.13 "The row, v2"): its lease and its renewal counter. */
    record Lease(Long millis, Long renewal) {
    }

    /** A recorded tuple; {@code serverName} is absent in rows written before it was recorded. */
    record TupleDocument(String serverId, String serverName, Long cid, String userNkey) {
        static TupleDocument of(ConnTuple tuple) {
            return new TupleDocument(tuple.serverId(), tuple.serverName(), tuple.cid(), tuple.userNkey());
        }

        /** The tuple; without a recorded name the id stands for it, so no restart can prove it gone. */
        ConnTuple tuple() {
            return new ConnTuple(serverId, serverName == null ? serverId : serverName, cid == null ? 0 : cid, userNkey);
        }
    }

    private final String space;
    private final RowStore rows;
    private final long generation;
    private final String claimId;
    private final ConnTuple ledger;
    private final ConnTuple records;
    private volatile boolean fenced;
    private volatile boolean releasing;
    private volatile boolean released;
    /** The last row {@link #assertHeld} read that held this claim (read afresh every time; only its parse is skipped). */
    private volatile byte[] held;
    /** Each fenced store's lanes (auth, records, admission), once {@link #stampStores} read them back. */
    private final java.util.Map<String, ai.cotal.core.internal.kv.FenceLanes> lanes = new java.util.concurrent.ConcurrentHashMap<>();

    private final java.util.concurrent.CompletableFuture<String> fenceMoved = new java.util.concurrent.CompletableFuture<>();

    private PlaneClaim(String space, RowStore rows, long generation, String claimId, ConnTuple ledger, ConnTuple records) {
        this.space = space;
        this.rows = rows;
        this.generation = generation;
        this.claimId = claimId;
        this.ledger = ledger;
        this.records = records;
    }

    /**
     * Acquires the claim: create when absent, CAS over a released row, reclaim a held row only
     * with proof that its holder is gone. The claim row is written in one atomic batch with the 8
     * auth fence rows of the new generation, on {@code barrier} (SPEC §13.13 "Acquisition"). At
     * most two rounds; losing both refuses {@code concurrent}.
     */
    public static PlaneClaim acquire(String space, RowStore rows, io.nats.client.Connection barrier, ConnTuple ledger,
            ConnTuple records, LivenessOracle oracle, Clock clock) {
        String claimId = NKeyPair.create(KeyType.USER).publicKey();
        String bucket = rows.stream().substring("KV_".length());
        for (int round = 0; round < 2; round++) {
            Optional<Row> current = rows.last(KEY);
            long generation;
            long expected;
            if (current.isEmpty()) {
                generation = 1;
                expected = 0;
            } else {
                Document row = read(space, current.get());
                if ("held".equals(row.state())) {
                    requireGone(space, row, oracle);
                    LOG.warn("auth-plane: space {}: reclaiming the plane claim of generation {}; both of its connections"
                            + " are gone", space, row.generation());
                }
                generation = row.generation() + 1;
                expected = current.get().revision();
            }
            byte[] claimRow = write(new Document(2, generation, claimId, "held", TupleDocument.of(ledger),
                    TupleDocument.of(records), clock.instant().toString(), null));
            PlaneFences.Result result = PlaneFences.acquire(barrier, bucket, claimRow, expected, generation, claimId);
            if (result == PlaneFences.Result.LANDED || result == PlaneFences.Result.NO_ANSWER
                    && ours(space, rows.last(KEY), generation, claimId)) {
                return new PlaneClaim(space, rows, generation, claimId, ledger, records);
            }
        }
        throw new PlaneClaimRefusal(Reason.CONCURRENT, space, "the claim changed twice while it was taken");
    }

    /** True when the row read after a batch without an answer is the one this claim wrote (its fresh claim id). */
    private static boolean ours(String space, Optional<Row> row, long generation, String claimId) {
        if (row.isEmpty()) {
            return false;
        }
        Document doc = read(space, row.get());
        return claimId.equals(doc.claimId()) && doc.generation() == generation;
    }

    /**
     * The restamp and read back after the acquisition (SPEC §13.13): stamps the records, then the
     * admission store's fence rows with this claim's generation (never lowering one: a higher
     * generation is {@code lost}), then reads each fenced store's fence rows back as its lanes.
     * {@code recordsReads} and {@code admissionReads} read those stores (leader), {@code writer}
     * writes their stamps. A lane that finds its fence moved fences this claim.
     */
    void stampStores(RowStore recordsReads, RowStore admissionReads, io.nats.client.Connection writer) {
        for (RowStore reads : List.of(recordsReads, admissionReads)) {
            PlaneFences.restamp(space, reads.stream().substring("KV_".length()), reads, writer, generation, claimId);
        }
        for (RowStore reads : List.of(rows, recordsReads, admissionReads)) {
            String stream = reads.stream();
            lanes.put(stream, PlaneFences.lanes(space, reads, generation, claimId, () -> fenceMoved.complete(
                    "a fenced write to " + stream + " met a later plane's fence: its claim was taken over")));
        }
    }

    /** Completes with the reason once a fenced write found its fence moved (the plane then fences). */
    java.util.concurrent.CompletableFuture<String> fenceMoved() {
        return fenceMoved;
    }

    /** The lanes of the fenced store {@code stream} ({@code KV_cotal_<kind>_<space>}); empty before {@link #stampStores}. */
    Optional<ai.cotal.core.internal.kv.FenceLanes> lanes(String stream) {
        return Optional.ofNullable(lanes.get(stream));
    }

    private static void requireGone(String space, Document row, LivenessOracle oracle) {
        ConnTuple a = row.ledger().tuple();
        ConnTuple b = row.records().tuple();
        LivenessOracle.Answer answer;
        try {
            answer = oracle.check(List.of(a, b));
        } catch (RuntimeException e) {
            answer = LivenessOracle.Answer.unknown(List.of(a, b));
        }
        LivenessOracle.State sa = answer.states().getOrDefault(a, LivenessOracle.State.UNKNOWN);
        LivenessOracle.State sb = answer.states().getOrDefault(b, LivenessOracle.State.UNKNOWN);
        if (sa == LivenessOracle.State.LIVE || sb == LivenessOracle.State.LIVE) {
            throw new PlaneClaimRefusal(Reason.LIVE_PEER, space, "generation " + row.generation()
                    + " holds it and its connections are live");
        }
        if (!answer.completeSweep() || sa != LivenessOracle.State.GONE || sb != LivenessOracle.State.GONE) {
            java.util.Set<String> silent = new java.util.TreeSet<>();
            if (sa != LivenessOracle.State.GONE) {
                silent.add(a.serverName());
            }
            if (sb != LivenessOracle.State.GONE) {
                silent.add(b.serverName());
            }
            throw new PlaneClaimRefusal(Reason.UNKNOWN, space, "the liveness check of generation " + row.generation()
                    + " did not complete" + (silent.isEmpty() ? "" : ": no proof from server " + String.join(" or ", silent)
                    + " that its connections there are gone; it must answer again, restarted or replaced under its name"));
        }
    }

    /** Fails the guard from now on: the plane detected a fault. */
    public void fence() {
        fenced = true;
    }

    /**
     * The guard run before and after every sealed scan: not fenced, not releasing, and the row is
     * still held by this claim with the same tuples. A row that cannot be read now (the store
     * electing a leader, the broker not answering) is {@code unreachable}, never {@code lost}.
     */
    public void assertHeld() {
        confirm(null);
    }

    /**
     * The same guard in two halves, for a caller with other work meanwhile: the row's read is sent
     * now and the returned check takes its answer and judges it (the flags too, then), so that no
     * thread waits for the read while the caller works.
     */
    public Runnable beginCheck() {
        RowStore.PendingRead read = rows.sendLast(KEY);
        return () -> confirm(read);
    }

    private void confirm(RowStore.PendingRead read) {
        if (fenced) {
            throw new PlaneClaimRefusal(Reason.FENCED, space, null);
        }
        if (releasing) {
            throw new PlaneClaimRefusal(Reason.RELEASED, space, null);
        }
        Row row;
        try {
            row = (read == null ? rows.last(KEY) : rows.awaitLast(read))
                    .orElseThrow(() -> new PlaneClaimRefusal(Reason.LOST, space, "the row is gone"));
        } catch (PlaneClaimRefusal e) {
            throw e;
        } catch (CotalException e) {
            if (e.code() == ErrorCode.UNAVAILABLE) { // e.g. the auth store electing a leader: the claim is not lost
                throw new PlaneClaimRefusal(Reason.UNREACHABLE, space, e.getMessage());
            }
            throw new PlaneClaimRefusal(Reason.LOST, space, "the row cannot be read: " + e.getMessage());
        }
        if (java.util.Arrays.equals(row.data(), held)) {
            return; // the very bytes that held it last time: the verdict is a function of them
        }
        Document doc = read(space, row);
        if (!"held".equals(doc.state()) || !claimId.equals(doc.claimId()) || doc.generation() != generation
                || !ledger.equals(doc.ledger().tuple()) || !records.equals(doc.records().tuple())) {
            throw new PlaneClaimRefusal(Reason.LOST, space, "generation " + doc.generation() + " holds it now");
        }
        held = row.data();
    }

    /**
     * Releases the claim (CAS to {@code released}). Idempotent for this claim; an unreachable
     * broker is the retryable {@code release-unreachable}.
     */
    public void release() {
        releasing = true;
        if (released) {
            return;
        }
        try {
            Row row = rows.last(KEY).orElseThrow(() -> new PlaneClaimRefusal(Reason.LOST, space, "the row is gone"));
            Document doc = read(space, row);
            if (!claimId.equals(doc.claimId()) || doc.generation() != generation) {
                throw new PlaneClaimRefusal(Reason.LOST, space, "generation " + doc.generation() + " holds it now");
            }
            if ("held".equals(doc.state())) {
                Document releasedRow = new Document(2, generation, claimId, "released", doc.ledger(), doc.records(),
                        doc.openedAt(), doc.lease());
                if (rows.compareAndSet(KEY, write(releasedRow), row.revision()).isEmpty()) {
                    throw new PlaneClaimRefusal(Reason.LOST, space, "the row moved during the release");
                }
            }
            released = true;
        } catch (PlaneClaimRefusal e) {
            throw e;
        } catch (CotalException e) {
            if (e.code() == ErrorCode.UNAVAILABLE) {
                throw new PlaneClaimRefusal(Reason.RELEASE_UNREACHABLE, space, e.getMessage());
            }
            throw e;
        }
    }

    public long generation() {
        return generation;
    }

    public String claimId() {
        return claimId;
    }

    private static byte[] write(Document doc) {
        return ClosedJson.write(ClosedJson.cotal(), doc);
    }

    private static Document read(String space, Row row) {
        try {
            Document doc = ClosedJson.read(ClosedJson.cotal(), row.data(), Document.class, KEY);
            if (doc.v() == null || doc.v() != 1 && doc.v() != 2 || doc.v() == 1 && doc.lease() != null
                    || doc.lease() != null && !validLease(doc.lease()) || doc.generation() == null || doc.generation() < 1
                    || doc.claimId() == null || doc.claimId().isEmpty() || doc.claimId().length() > 128
                    || !("held".equals(doc.state()) || "released".equals(doc.state())) || doc.ledger() == null
                    || doc.records() == null || doc.openedAt() == null || doc.openedAt().length() > 64) {
                throw CotalException.badRequest(KEY, "not a v1 or v2 plane row");
            }
            doc.ledger().tuple();
            doc.records().tuple();
            return doc;
        } catch (CotalException e) {
            throw new PlaneClaimRefusal(Reason.CORRUPT, space, e.getMessage());
        }
    }

    /** A lease of 5 s to 120 s and a renewal counter of at least 0. */
    private static boolean validLease(Lease lease) {
        return lease.millis() != null && lease.millis() >= 5_000 && lease.millis() <= 120_000 && lease.renewal() != null
                && lease.renewal() >= 0;
    }
}
