package ai.cotal.core.issued;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.issued.IssuedRows.Accepted;
import ai.cotal.core.issued.IssuedRows.Attempt;
import ai.cotal.core.issued.IssuedRows.Evidence;
import ai.cotal.core.issued.IssuedRows.Index;
import ai.cotal.core.issued.IssuedRows.State;
import ai.cotal.core.internal.kv.RowStore;
import ai.cotal.core.internal.kv.RowStore.Row;
import ai.cotal.core.stores.IssuedStores;
import ai.cotal.core.internal.kv.StoreNames;
import io.nats.client.Connection;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Issued authority of one space (SPEC §13.15): evidence in {@code cotal_issued_<token>}
 * (append-only; the first message on a key is the record), accepted rows in
 * {@code cotal_accepted_<token>} (write-once). An issuance is {@link #stage staged} (evidence,
 * source index, attempt {@code prepared}), {@link #release released} (attempt CAS to
 * {@code active} at the staged revision, then the accepted row), later {@link #confirm confirmed}
 * for a byte-identical ceiling while it is not {@link #revoke revoked}, and {@link #resolve resolved} while its sources are live or its
 * {@code expiresAt} has not passed. Every step can be replayed with the same input and finishes
 * what an interrupted call left.
 *
 * <p>Thread-safe; the caller owns the connection (an {@code issuer} credential).
 */
public final class IssuedAuthority {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String space;
    private final RowStore issued;
    private final RowStore accepted;
    private final SourceLiveness liveness;
    private final Clock clock;

    private IssuedAuthority(Connection connection, String space, SourceLiveness liveness, Clock clock) {
        this.space = space;
        this.issued = new RowStore(connection, StoreNames.bucket("issued", space));
        this.accepted = new RowStore(connection, StoreNames.bucket("accepted", space));
        this.liveness = Objects.requireNonNull(liveness, "liveness");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Binds the two stores of {@code space}; refused when either is missing, drifted, or from
     * before bounded retention ({@code IssuedStoreRetentionRefusal}, naming the recreation step).
     */
    public static IssuedAuthority bind(Connection connection, String space, SourceLiveness liveness, Clock clock) {
        IssuedStores.requireCurrentShape(connection, space);
        return new IssuedAuthority(connection, space, liveness, clock);
    }

    /** A fresh generation: 128 random bits as 32 lowercase hex. */
    public static String newGeneration() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    /** The accepted-row token of a connection: the first 32 hex of SHA-256("cotal.accepted.v1\0" + connId). */
    public static String acceptedToken(String connId) {
        if (connId == null || !connId.matches("[A-Za-z0-9_-]{8,120}")) {
            throw CotalException.badRequest("connId", "must be 8 to 120 letters, digits, _ or -");
        }
        return sha256("cotal.accepted.v1\0" + connId).substring(0, 32);
    }

    /** Staged evidence: the attempt row's revision and the evidence digest. */
    public record Staged(IssuedRef ref, long revision, String digest) {
    }

    /** What a resolve grants. */
    public record Resolved(IssuedRef ref, Ceiling permissions) {
    }

    /** Writes the evidence, its source index rows and the {@code prepared} attempt; create-only, replayable. */
    public Staged stage(IssuedRef ref, List<Source> sources, Ceiling permissions, Optional<Long> expiresAt) {
        checkRef(ref);
        if (sources.isEmpty() && expiresAt.isEmpty()) {
            throw CotalException.badRequest("expiresAt", "an issuance without sources must expire");
        }
        Evidence evidence = new Evidence(1, ref, List.copyOf(sources), permissions, expiresAt.orElse(null));
        byte[] bytes = IssuedRows.write(evidence);
        String digest = sha256(bytes);
        createOrSame(issued, IssuedRows.evidenceKey(ref), bytes, "generation " + ref.generation() + " is already used");
        byte[] index = IssuedRows.write(new Index(1, ref));
        for (Source source : sources) {
            String key = IssuedRows.indexKey(sha256(new String(IssuedRows.write(source), StandardCharsets.UTF_8)), ref);
            createOrSame(issued, key, index, "index row " + key + " holds another issuance");
        }
        String attemptKey = IssuedRows.attemptKey(ref);
        Optional<Long> created = issued.create(attemptKey, IssuedRows.write(new Attempt(1, State.prepared, digest)));
        if (created.isPresent()) {
            return new Staged(ref, created.get(), digest);
        }
        Row row = issued.last(attemptKey).orElseThrow(() -> IssuedRows.corrupt(attemptKey, "vanished"));
        Attempt attempt = IssuedRows.read(row.data(), Attempt.class, attemptKey);
        if (attempt.state() != State.prepared || !digest.equals(attempt.digest())) {
            throw new CotalException(ErrorCode.CONFLICT, attemptKey + " is " + attempt.state() + " for other evidence");
        }
        return new Staged(ref, row.revision(), digest);
    }

    /**
     * Moves the attempt from {@code prepared} to {@code active} at the staged revision, then writes
     * the accepted row for {@code token}. Replayable: an attempt already active for the same
     * digest and an identical accepted row are taken as done.
     */
    public void release(Staged staged, String token) {
        checkRef(staged.ref());
        checkToken(token);
        String attemptKey = IssuedRows.attemptKey(staged.ref());
        byte[] active = IssuedRows.write(new Attempt(1, State.active, staged.digest()));
        if (issued.compareAndSet(attemptKey, active, staged.revision()).isEmpty()) {
            Row row = issued.last(attemptKey).orElseThrow(() -> IssuedRows.corrupt(attemptKey, "vanished"));
            Attempt attempt = IssuedRows.read(row.data(), Attempt.class, attemptKey);
            if (attempt.state() != State.active || !staged.digest().equals(attempt.digest())) {
                throw new CotalException(ErrorCode.CONFLICT, attemptKey + " moved from the staged revision (now "
                        + attempt.state() + ")");
            }
        }
        createOrSame(accepted, IssuedRows.acceptedKey(token), IssuedRows.write(new Accepted(1, staged.ref())),
                "accepted row " + token + " names another issuance");
    }

    /**
     * Confirms a renewal: allowed only while the attempt is {@code active} and for a ceiling
     * byte-identical to the issued one. A revoked issuance is never confirmed again
     * ({@code permission-denied}); a changed ceiling needs a new generation ({@code conflict}).
     */
    public IssuedRef confirm(String token, Ceiling permissions) {
        IssuedRef ref = acceptedRef(token);
        String attemptKey = IssuedRows.attemptKey(ref);
        Attempt attempt = IssuedRows.read(issued.last(attemptKey).orElseThrow(() -> IssuedRows.corrupt(attemptKey,
                "missing for an accepted row")).data(), Attempt.class, attemptKey);
        if (attempt.state() == State.revoked) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, "issuance " + ref.key() + " was revoked: it is never"
                    + " confirmed again; a new connection id needs a new issuance");
        }
        if (attempt.state() != State.active) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, "issuance " + ref.key() + " is " + attempt.state()
                    + ", not active: it cannot be confirmed");
        }
        Evidence evidence = evidence(ref);
        if (!Arrays.equals(IssuedRows.write(evidence.permissions()), IssuedRows.write(permissions))) {
            throw new CotalException(ErrorCode.CONFLICT, "the ceiling differs from the issued one: a changed ceiling"
                    + " needs a new generation");
        }
        return ref;
    }

    /**
     * Resolves the issuance behind {@code token}: the attempt is active, its sources are live (or,
     * without sources, {@code expiresAt} has not passed), and the attempt is still active at the
     * same revision after those checks.
     */
    public Resolved resolve(String token) {
        IssuedRef ref = acceptedRef(token);
        String attemptKey = IssuedRows.attemptKey(ref);
        Row before = issued.last(attemptKey).orElseThrow(() -> IssuedRows.corrupt(attemptKey, "missing for an accepted row"));
        requireActive(before, attemptKey);
        Evidence evidence = evidence(ref);
        if (evidence.sources().isEmpty()) {
            if (evidence.expiresAt() == null || evidence.expiresAt() <= clock.instant().getEpochSecond()) {
                throw new CotalException(ErrorCode.PERMISSION_DENIED, "issuance " + ref.key() + " has expired");
            }
        } else {
            for (Source source : evidence.sources()) {
                if (!liveness.isLive(source)) {
                    throw new CotalException(ErrorCode.PERMISSION_DENIED, "issuance " + ref.key() + ": source "
                            + source.bucket() + "/" + source.key() + " is gone");
                }
            }
        }
        Row after = issued.last(attemptKey).orElseThrow(() -> IssuedRows.corrupt(attemptKey, "vanished"));
        if (after.revision() != before.revision()) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, "issuance " + ref.key() + " changed while it was resolved");
        }
        return new Resolved(ref, evidence.permissions());
    }

    /** Revokes an active or prepared issuance; later resolves refuse. Idempotent. */
    public void revoke(IssuedRef ref) {
        checkRef(ref);
        String attemptKey = IssuedRows.attemptKey(ref);
        for (int round = 0; round < 3; round++) {
            Row row = issued.last(attemptKey).orElseThrow(() -> new CotalException(ErrorCode.NOT_FOUND,
                    "no issuance " + ref.key()));
            Attempt attempt = IssuedRows.read(row.data(), Attempt.class, attemptKey);
            if (attempt.state() == State.revoked) {
                return;
            }
            byte[] revoked = IssuedRows.write(new Attempt(1, State.revoked, attempt.digest()));
            if (issued.compareAndSet(attemptKey, revoked, row.revision()).isPresent()) {
                return;
            }
        }
        throw new CotalException(ErrorCode.CONFLICT, attemptKey + " keeps moving; retry the revoke");
    }

    /** The issuance an accepted row names, or empty when the token has no row. */
    public Optional<IssuedRef> accepted(String token) {
        checkToken(token);
        if (accepted.first(IssuedRows.acceptedKey(token)).isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(acceptedRef(token));
    }

    private IssuedRef acceptedRef(String token) {
        checkToken(token);
        String key = IssuedRows.acceptedKey(token);
        Row row = accepted.first(key).orElseThrow(() -> new CotalException(ErrorCode.NOT_FOUND, "no accepted row " + token));
        IssuedRef ref = IssuedRows.read(row.data(), Accepted.class, key).ref();
        if (ref == null || !space.equals(ref.space())) {
            throw IssuedRows.corrupt(key, "names another space");
        }
        return ref;
    }

    private Evidence evidence(IssuedRef ref) {
        String key = IssuedRows.evidenceKey(ref);
        Row row = issued.first(key).orElseThrow(() -> IssuedRows.corrupt(key, "missing for an accepted row"));
        Evidence evidence = IssuedRows.read(row.data(), Evidence.class, key);
        if (!ref.equals(evidence.ref()) || evidence.permissions() == null || evidence.sources() == null) {
            throw IssuedRows.corrupt(key, "does not describe " + ref.key());
        }
        return evidence;
    }

    private static void requireActive(Row row, String key) {
        Attempt attempt = IssuedRows.read(row.data(), Attempt.class, key);
        if (attempt.state() != State.active) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, key + " is " + attempt.state());
        }
    }

    private static void createOrSame(RowStore store, String key, byte[] bytes, String conflict) {
        if (store.create(key, bytes).isPresent()) {
            return;
        }
        Row existing = store.first(key).orElseThrow(() -> IssuedRows.corrupt(key, "vanished"));
        if (!Arrays.equals(existing.data(), bytes)) {
            throw new CotalException(ErrorCode.ALREADY_EXISTS, conflict);
        }
    }

    private void checkRef(IssuedRef ref) {
        if (ref == null || !space.equals(ref.space())) {
            throw CotalException.badRequest("ref.space", "must be " + space);
        }
    }

    private static void checkToken(String token) {
        if (token == null || !token.matches("[0-9a-f]{32}")) {
            throw CotalException.badRequest("token", "must be 32 lowercase hex");
        }
    }

    private static String sha256(String text) {
        return sha256(text.getBytes(StandardCharsets.UTF_8));
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw CotalException.internal("SHA-256 unavailable", e);
        }
    }
}
