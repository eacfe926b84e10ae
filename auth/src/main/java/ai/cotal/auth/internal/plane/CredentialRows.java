package ai.cotal.auth.internal.plane;

import ai.cotal.auth.internal.connect.AuthorityConnection;
import ai.cotal.auth.ConnectAttempt;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.core.internal.keys.NKeyCodec;
import ai.cotal.core.internal.kv.RowStore;
import ai.cotal.core.internal.kv.StoreNames;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueOperation;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Clock;

/**
 * Credential rows {@code cred.<id>} in {@code cotal_auth_<space>}: {@code {version: 1, owner,
 * actor, lifecycleUid, issuedAt}}. Written by the writer, read by the reader (leader reads); a
 * bearer may connect only while the row it names is live for its principal and uid. Every row is
 * written with a per-message TTL ({@link #ROW_TTL}): the broker removes it when the credential
 * has expired, leaving a marker that reads as absent (SPEC §13.14).
 */
public final class CredentialRows {
    private static final SecureRandom RANDOM = new SecureRandom();
    /** How long a row outlives the longest bearer minted for it, for clock skew and the connect check. */
    static final java.time.Duration GRACE = java.time.Duration.ofSeconds(60);
    /** A credential row's TTL: the longest bearer ({@code BearerRequest.MAX_TTL}, 900 s) plus {@link #GRACE}. */
    static final java.time.Duration ROW_TTL = ai.cotal.auth.BearerRequest.MAX_TTL.plus(GRACE);

    private record Row(Integer version, String owner, String actor, String lifecycleUid, String issuedAt) {
    }

    /** The last parse of each credential row: a bearer names its row at every connect and reconnect. */
    private static final ai.cotal.core.internal.json.ParseMemo<Row> ROWS = new ai.cotal.core.internal.json.ParseMemo<>(4096);

    private final String space;
    /** How long one credential-row read waits for its answer (healthy reads take about a millisecond). */
    private static final java.time.Duration READ_TIMEOUT = java.time.Duration.ofSeconds(1);
    /** The broker's "wrong last sequence": the key already has a message. */
    private static final int WRONG_LAST_SEQUENCE = 10071;
    /** The broker's "sequence temporarily unknown" (a clustered stream still applying a proposal). */
    private static final int SEQUENCE_TEMPORARILY_UNKNOWN = 10164;

    private final AuthorityConnection reader;
    private final ai.cotal.core.internal.connect.ConnectedWait writerOnline;
    /** The writer's handle on the auth store, made by its first use (making one reads the stream's info). */
    private volatile KeyValue writerBucket;
    private final Connection writer;
    private final io.nats.client.JetStream writerStream;
    private final String subjectPrefix;
    /** The reader's leader reads of credential rows and lifecycle heads, each waiting at most {@link #READ_TIMEOUT}. */
    private final RowStore readerRows;
    private final Clock clock;
    private final io.nats.client.MessageTtl ttl;
    /** The plane's fenced writes of the auth store (SPEC §13.13); null where nothing is written (a replica's reads, tests). */
    private final FencedCredentialWrites fenced;

    public CredentialRows(String space, Connection writer, AuthorityConnection reader, Clock clock) {
        this(space, writer, reader, clock, ROW_TTL, null);
    }

    /** The plane's rows: every mint, retry and revoke is a fenced write through {@code fenced}. */
    public CredentialRows(String space, Connection writer, AuthorityConnection reader, Clock clock,
            ai.cotal.core.internal.kv.FencedWrite fenced) {
        this(space, writer, reader, clock, ROW_TTL, fenced);
    }

    /** Rows written with {@code rowTtl} (whole seconds, at least 1) instead of {@link #ROW_TTL}: tests only. */
    CredentialRows(String space, Connection writer, AuthorityConnection reader, Clock clock, java.time.Duration rowTtl) {
        this(space, writer, reader, clock, rowTtl, null);
    }

    private CredentialRows(String space, Connection writer, AuthorityConnection reader, Clock clock,
            java.time.Duration rowTtl, ai.cotal.core.internal.kv.FencedWrite fenced) {
        this.ttl = io.nats.client.MessageTtl.seconds((int) Math.max(1, rowTtl.toSeconds()));
        this.space = space;
        this.reader = reader;
        this.writerOnline = ai.cotal.core.internal.connect.ConnectedWait.on(writer);
        this.clock = clock;
        // the connect check answers inside the broker's auth timeout: a read whose answer was lost
        // at a turnover gives up after READ_TIMEOUT and runs once more, instead of waiting 5 s
        this.readerRows = new RowStore(reader.connection(), StoreNames.bucket("auth", space), READ_TIMEOUT);
        try {
            this.writer = writer;
            this.writerStream = writer.jetStream();
            this.subjectPrefix = "$KV." + StoreNames.bucket("auth", space) + ".";
        } catch (IOException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "cannot open the auth store of " + space, e);
        }
        this.fenced = fenced == null ? null : new FencedCredentialWrites(fenced, ttl, subjectPrefix);
    }

    /** The writer's handle on the auth store; the first call makes it (one broker round trip). */
    private KeyValue writerBucket() throws IOException {
        KeyValue bucket = writerBucket;
        if (bucket == null) {
            bucket = writer.keyValue(StoreNames.bucket("auth", space));
            writerBucket = bucket;
        }
        return bucket;
    }

    /**
     * Creates a fresh credential row. A create whose connection turned over under it is tried once
     * more with the same id, as a strict create (no tombstone is ever overwritten, so a revoke of a
     * row that landed is never undone): "already there" counts as landed only when the row there
     * is a put of exactly these bytes (the id is 130 random bits, written by nobody else).
     */
    String mint(String owner, String actor, String lifecycleUid) {
        String id = newId();
        byte[] row = ClosedJson.write(ClosedJson.cotal(), new Row(1, owner, actor, lifecycleUid, clock.instant().toString()));
        String key = "cred." + id;
        if (fenced != null) {
            fenced.mint(key, row, null, 0, owner + "." + actor);
            return id;
        }
        try {
            return writerOnline.run(() -> {
                writerBucket().create(key, row, ttl);
                return id;
            }, () -> {
                if (!createAgain(key, row)) {
                    throw new CotalException(ErrorCode.UNAVAILABLE, "cannot write credential row for " + owner + "."
                            + actor + ": the retried create found the key taken by something else");
                }
                return id;
            });
        } catch (JetStreamApiException | IOException | IllegalStateException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "cannot write credential row for " + owner + "." + actor, e);
        }
    }

    /**
     * {@link #mint}'s write under the broker's check that the alias's head ({@code headKey}) is
     * still at {@code headRevision} (a publish with {@code Nats-Expected-Last-Subject-Sequence}
     * of the head's subject): the row lands only while the head the caller decided on stands.
     * Empty when the head has moved (nothing written); the caller then decides again from the
     * leader. A lost answer is retried as {@link #mint}'s is (a strict create of the same id).
     */
    java.util.Optional<String> mintWhileHead(String owner, String actor, String lifecycleUid, String headKey,
            long headRevision) {
        String id = newId();
        byte[] row = ClosedJson.write(ClosedJson.cotal(), new Row(1, owner, actor, lifecycleUid, clock.instant().toString()));
        String key = "cred." + id;
        if (fenced != null) {
            return fenced.mint(key, row, headKey, headRevision, owner + "." + actor) ? java.util.Optional.of(id)
                    : java.util.Optional.empty();
        }
        try {
            return writerOnline.run(() -> {
                try {
                    writerStream.publish(subjectPrefix + key, row, io.nats.client.PublishOptions.builder()
                            .expectedLastSubjectSequence(headRevision).expectedLastSubjectSequenceSubject(subjectPrefix
                                    + headKey).messageTtl(ttl).build());
                    return java.util.Optional.of(id);
                } catch (JetStreamApiException e) {
                    if (e.getApiErrorCode() == WRONG_LAST_SEQUENCE) {
                        return java.util.Optional.<String>empty();
                    }
                    throw e;
                }
            }, () -> {
                if (!createAgain(key, row)) {
                    throw new CotalException(ErrorCode.UNAVAILABLE, "cannot write credential row for " + owner + "."
                            + actor + ": the retried create found the key taken by something else");
                }
                return java.util.Optional.of(id);
            });
        } catch (JetStreamApiException | IOException | IllegalStateException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "cannot write credential row for " + owner + "." + actor, e);
        }
    }

    /**
     * The retry of a create whose answer was lost: a strict create (fails on any message on the
     * key, tombstones and expiry markers too, so a revoked row is never written back), with the
     * same TTL. True when it wrote the row now or the first try had landed (the key holds a put of
     * exactly {@code row}); false when the key holds anything else.
     */
    boolean createAgain(String key, byte[] row) throws IOException, JetStreamApiException {
        try {
            writerStream.publish(subjectPrefix + key, row, io.nats.client.PublishOptions.builder()
                    .expectedLastSubjectSequence(0).messageTtl(ttl).build());
            return true;
        } catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == WRONG_LAST_SEQUENCE || e.getApiErrorCode() == SEQUENCE_TEMPORARILY_UNKNOWN) {
                return landed(key, row);
            }
            throw e;
        }
    }

    /** Whether {@code key}'s last message is a put of exactly {@code row}. */
    private boolean landed(String key, byte[] row) {
        try {
            KeyValueEntry entry = writerBucket().get(key);
            return entry != null && entry.getOperation() == KeyValueOperation.PUT
                    && java.util.Arrays.equals(entry.getValue(), row);
        } catch (JetStreamApiException | IOException | IllegalStateException e) {
            return false;
        }
    }

    void revoke(String id) {
        checkId(id);
        if (fenced != null) {
            fenced.revoke("cred." + id, id);
            return;
        }
        try {
            writerBucket().delete("cred." + id);
        } catch (JetStreamApiException | IOException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "cannot revoke credential " + id, e);
        }
    }

    /**
     * The connect check (SPEC §13.14): the ledger row allows it, its lifecycle is not retired
     * (§14.1), then its credential row is live. The two leader reads are sent first, together
     * with the ledger's own read when its placement sends one (§13.23), and travel while the
     * ledger row is read; each is judged in that order, so a refusal is the one the checks in
     * turn give. The attempt's identifiers are typed, so every read is in grammar.
     */
    public ai.cotal.auth.ActorRow authorize(ai.cotal.auth.internal.ledger.LedgerReads ledger, ConnectAttempt attempt) {
        RowStore.PendingRead head = readerRows.sendLast(LifecycleRows.headKey(attempt.principal().owner().value(),
                attempt.principal().actor().value()));
        RowStore.PendingRead credential = readerRows.sendLast("cred." + attempt.credentialId().value());
        ai.cotal.auth.internal.ledger.LedgerReads.Pending pending = ledger.send(attempt.principal());
        ai.cotal.auth.ActorRow row = ledger.authorizeConnect(attempt, pending); // refuses a name outside the grammar
        requireLifecycleOpen(attempt, head);
        requireLive(attempt, credential);
        return row;
    }

    private static boolean validId(String id) {
        return CredentialId.matches(id);
    }

    /** The head of the attempt's alias, when it is at the attempt's uid, must be {@code active}. */
    private void requireLifecycleOpen(ConnectAttempt attempt, RowStore.PendingRead read) {
        String key = LifecycleRows.headKey(attempt.principal().owner().value(), attempt.principal().actor().value());
        java.util.Optional<RowStore.Row> entry;
        try {
            // a marker where the head belongs is data-loss (§14.1)
            entry = read == null ? readerRows.last(key) : readerRows.awaitLast(read);
        } catch (CotalException e) {
            if (e.code() == ErrorCode.DATA_LOSS) {
                throw new CotalException(ErrorCode.DATA_LOSS, "the lifecycle record " + key
                        + " is corrupt (a delete or purge marker stands where a row belongs)", e);
            }
            throw new CotalException(ErrorCode.UNAVAILABLE, "cannot read the lifecycle head of " + attempt.principal()
                    + "; retry shortly", e);
        }
        if (entry.isEmpty()) {
            return;
        }
        ai.cotal.auth.Lifecycles.Head head = LifecycleRows.parseHead(attempt.principal().owner().value(), attempt.principal().actor().value(), entry.get().data());
        if (head.lifecycleUid().equals(attempt.lifecycleUid()) && head.state() != ai.cotal.auth.Lifecycles.State.ACTIVE) {
            throw denied(attempt, "presents lifecycle " + head.lifecycleUid() + ", which was retired");
        }
    }

    /**
     * The retirement barrier's credential half (SPEC §14.1): deletes every live row of {@code rows}
     * (a sealed scan of {@code cred.}, key to bytes) that names the owner, actor and uid. A row that
     * does not parse admits nothing and is left. Answers how many were deleted.
     */
    int revokeLifecycle(java.util.Map<String, byte[]> rows, String owner, String actor, String uid) {
        int revoked = 0;
        for (java.util.Map.Entry<String, byte[]> scanned : rows.entrySet()) {
            Row row;
            try {
                row = ClosedJson.read(ClosedJson.cotal(), scanned.getValue(), Row.class, scanned.getKey());
            } catch (CotalException e) {
                continue;
            }
            if (owner.equals(row.owner()) && actor.equals(row.actor()) && uid.equals(row.lifecycleUid())) {
                revoke(scanned.getKey().substring("cred.".length()));
                revoked++;
            }
        }
        return revoked;
    }

    /** The credential row's answer (a revoke's or an expiry's marker reads as absent), across a turnover. */
    private java.util.Optional<RowStore.Row> read(String id, RowStore.PendingRead read) {
        try {
            return read == null ? readerRows.lastLive("cred." + id) : readerRows.awaitLive(read);
        } catch (CotalException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "cannot read credential " + id + " (" + e.getMessage()
                    + "); retry shortly", e);
        }
    }

    /** The credential half of the connect check alone: the attempt's row is live for its principal and uid. */
    void requireLive(ConnectAttempt attempt) {
        requireLive(attempt, null);
    }

    private void requireLive(ConnectAttempt attempt, RowStore.PendingRead read) {
        String id = attempt.credentialId().value();
        java.util.Optional<RowStore.Row> entry = read(id, read);
        if (entry.isEmpty()) {
            throw denied(attempt, "names a credential that was revoked, expired or never issued");
        }
        Row row;
        try {
            row = ROWS.parse("cred." + id, entry.get().data(), data -> ClosedJson.read(ClosedJson.cotal(), data, Row.class,
                    "cred." + id));
        } catch (CotalException e) {
            throw denied(attempt, "names a corrupt credential row");
        }
        if (row.version() == null || row.version() != 1 || !attempt.principal().owner().value().equals(row.owner())
                || !attempt.principal().actor().value().equals(row.actor()) || !attempt.lifecycleUid().value().equals(row.lifecycleUid())) {
            throw denied(attempt, "names a credential of another principal or lifecycle");
        }
    }

    private static void checkId(String id) {
        if (!validId(id)) {
            throw CotalException.badRequest("credentialId", "must be 26 lowercase base32 characters");
        }
    }

    private static CotalException denied(ConnectAttempt attempt, String why) {
        return new CotalException(ErrorCode.PERMISSION_DENIED, "actor " + attempt.principal() + " " + why);
    }

    /** 130 random bits: 26 lowercase base32 characters. */
    private static String newId() {
        byte[] bytes = new byte[17];
        RANDOM.nextBytes(bytes);
        return NKeyCodec.base32(bytes).toLowerCase(java.util.Locale.ROOT).substring(0, 26);
    }
}
