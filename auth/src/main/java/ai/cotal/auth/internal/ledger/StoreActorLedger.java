package ai.cotal.auth.internal.ledger;

import ai.cotal.auth.ActorLedger;
import ai.cotal.auth.ActorRow;
import ai.cotal.auth.ActorTokens;
import ai.cotal.auth.ConnectAttempt;
import ai.cotal.auth.Grant;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.Actor;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.core.internal.json.ParseMemo;
import ai.cotal.core.internal.kv.RowStore;
import io.nats.client.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The store placement of the actor ledger (SPEC §13.23): one row per principal under
 * {@code ledger.<owner>.<actor>} of the space's auth store, closed camelCase JSON carrying its
 * {@code ver} and {@code kind}. Writes go through the writer's {@link RowStore}, each one message
 * and a compare-and-set on the key's revision (create-only for a key with no message); a write
 * whose answer was lost reads its key back. Reads go through the reader's, each a leader read,
 * and fail closed: a row that does not parse closed, a wrong {@code ver} or {@code kind}, a row
 * naming another principal than its key, a broken grammar or {@code tokenHash} rule, a marker other
 * than a KV delete, or a row over 64 KiB is {@code data-loss}; a KV delete reads as absent. Nothing
 * is cached: every read asks the leader again (parses are remembered by exact bytes). Messages
 * name the row's kind and principal, never a key or an exception's text. Thread-safe; one writer
 * (the claim's plane).
 */
public final class StoreActorLedger implements LedgerBackend {
    /** The largest encoded row (SPEC §13.23). */
    static final int MAX_ROW_BYTES = 64 * 1024;
    /** How long one leader read waits for its answer. */
    static final Duration READ_TIMEOUT = Duration.ofSeconds(1);
    static final String PREFIX = "ledger.";

    private record Document(Integer ver, String kind, String owner, String actor, List<String> scope,
            List<String> allowSubscribe, List<String> allowPublish, String role, String parent, String label,
            String tokenHash, String lifecycleUid, String grantedAt) {
    }

    private final RowStore writer;
    private final RowStore reader;
    private final StoreListing listing;
    private final Clock clock;
    private final ParseMemo<ActorRow> parses = new ParseMemo<>(4096);
    private final StorePin pin;
    /** A test's seam: a write to a key it names lands and then loses its answer, as at a turnover. */
    private volatile java.util.function.Predicate<String> loseAnswer = key -> false;

    /**
     * The ledger in {@code bucket} (the space's auth store), written over {@code writer} and read
     * over {@code reader}; nothing is read or written until a call.
     */
    public StoreActorLedger(Connection writer, Connection reader, String bucket, Clock clock) {
        this.writer = new RowStore(Objects.requireNonNull(writer, "writer"), bucket, READ_TIMEOUT);
        this.reader = new RowStore(Objects.requireNonNull(reader, "reader"), bucket, READ_TIMEOUT);
        this.listing = new StoreListing(reader, bucket);
        this.clock = Objects.requireNonNull(clock, "clock");
        this.pin = new StorePin(this.writer, this.reader);
    }

    /** Makes each write to a key {@code lose} names land and then answer {@code unavailable} (tests only). */
    void loseAnswers(java.util.function.Predicate<String> lose) {
        this.loseAnswer = Objects.requireNonNull(lose, "lose");
    }

    private Optional<Long> landed(String key, Optional<Long> answer) {
        if (answer.isPresent() && loseAnswer.test(key)) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "the write's answer was lost");
        }
        return answer;
    }

    @Override
    public Optional<ai.cotal.auth.IdpPin> idpPin() {
        return pin.read();
    }

    @Override
    public ai.cotal.auth.IdpPin pinStock(String url) {
        return pin.pinStock(url);
    }

    @Override
    public ai.cotal.auth.IdpPin pinOidc(String issuer, String clientId, List<String> algorithms) {
        return pin.pinOidc(issuer, clientId, algorithms);
    }

    @Override
    public Placement placement() {
        return Placement.STORE;
    }

    static String key(Principal principal) {
        return PREFIX + principal;
    }

    @Override
    public ActorRow grantActor(Principal principal, Grant grant) {
        Objects.requireNonNull(grant, "grant");
        return write(new ActorRow(ActorRow.Kind.INTERACTIVE, principal, grant.scope(), grant.allowSubscribe(),
                grant.allowPublish(), grant.role(), grant.parent(), grant.label(), Optional.empty(),
                ActorTokens.newLifecycleUid(), clock.instant().toString()));
    }

    @Override
    public ActorRow grantManagedActor(Principal principal, Grant grant, String tokenHash, LifecycleUid lifecycleUid) {
        Objects.requireNonNull(grant, "grant");
        return write(new ActorRow(ActorRow.Kind.MANAGED, principal, grant.scope(), grant.allowSubscribe(),
                grant.allowPublish(), grant.role(), grant.parent(), grant.label(), Optional.ofNullable(tokenHash),
                lifecycleUid, clock.instant().toString()));
    }

    /**
     * One grant: the writer's leader read of the key decides (the other kind's row refuses, a row
     * it cannot read refuses, anything else is superseded at its revision), then one CAS. A lost
     * CAS decides once more; a lost answer reads the key back (landed when it holds exactly these
     * bytes, the fresh uid making them unique) and otherwise decides again.
     */
    private ActorRow write(ActorRow row) {
        byte[] bytes = encode(row);
        String key = key(row.principal());
        for (int round = 0; round < 2; round++) {
            long revision = revisionToGrant(row, read(writer, row.principal()));
            try {
                if (landed(key, writer.compareAndSet(key, bytes, revision)).isPresent()) {
                    return row;
                }
            } catch (CotalException e) {
                if (e.code() != ErrorCode.UNAVAILABLE) {
                    throw new CotalException(e.code(), rowName(row.kind(), row.principal()) + " cannot be written: the"
                            + " broker refused the write", e);
                }
                Optional<RowStore.Entry> back = read(writer, row.principal());
                if (back.isPresent() && back.get().op() == RowStore.Op.PUT && Arrays.equals(back.get().data(), bytes)) {
                    return row;
                }
            }
        }
        throw new CotalException(ErrorCode.UNAVAILABLE, rowName(row.kind(), row.principal())
                + " cannot be written now (another write of it moved it twice); retry shortly");
    }

    /** The revision a grant of {@code row} supersedes, or the refusal its key's entry gives. */
    private long revisionToGrant(ActorRow row, Optional<RowStore.Entry> entry) {
        if (entry.isEmpty()) {
            return 0;
        }
        RowStore.Entry found = entry.get();
        if (found.op() == RowStore.Op.DELETE) {
            return found.revision();
        }
        ActorRow there;
        try {
            there = rowOf(row.principal(), found);
        } catch (CotalException e) {
            throw new CotalException(ErrorCode.DATA_LOSS, e.getMessage() + ": a grant does not overwrite it (revoke it"
                    + " first)", e);
        }
        if (there.kind() != row.kind()) {
            throw new CotalException(ErrorCode.ALREADY_EXISTS, row.principal() + " is already in the "
                    + kindWord(there.kind()) + " ledger: revoke it there first");
        }
        return found.revision();
    }

    @Override
    public void revoke(Principal principal) {
        Objects.requireNonNull(principal, "principal");
        for (int round = 0; round < 2; round++) {
            Optional<RowStore.Entry> entry = read(writer, principal);
            if (entry.isEmpty() || entry.get().op() == RowStore.Op.DELETE) {
                return;
            }
            try {
                if (landed(key(principal), writer.delete(key(principal), entry.get().revision())).isPresent()) {
                    return;
                }
            } catch (CotalException e) {
                if (e.code() != ErrorCode.UNAVAILABLE) {
                    throw new CotalException(e.code(), "cannot revoke " + principal + ": the broker refused the write", e);
                }
                Optional<RowStore.Entry> back = read(writer, principal);
                if (back.isPresent() && back.get().op() == RowStore.Op.DELETE) {
                    return;
                }
            }
        }
        throw new CotalException(ErrorCode.UNAVAILABLE, "cannot revoke " + principal
                + " now (another write of its ledger row moved it twice); retry shortly");
    }

    @Override
    public Optional<ActorRow> find(Principal principal) {
        Objects.requireNonNull(principal, "principal");
        return rowOf(principal, read(reader, principal));
    }

    @Override
    public List<ActorRow> interactiveRows(Owner owner) {
        Objects.requireNonNull(owner, "owner");
        List<Principal> principals = new ArrayList<>();
        for (String key : listing.keys(PREFIX + owner + ".", "the interactive ledger rows of " + owner)) {
            String actor = key.substring(PREFIX.length() + owner.value().length() + 1);
            if (Actor.matches(actor)) {
                principals.add(new Principal(owner, new Actor(actor)));
            }
        }
        List<RowStore.PendingRead> sent = new ArrayList<>();
        for (Principal principal : principals) {
            sent.add(reader.sendLast(key(principal)));
        }
        List<ActorRow> rows = new ArrayList<>();
        for (int i = 0; i < principals.size(); i++) {
            try {
                rowOf(principals.get(i), await(principals.get(i), sent.get(i)))
                        .filter(row -> row.kind() == ActorRow.Kind.INTERACTIVE).ifPresent(rows::add);
            } catch (CotalException e) {
                if (e.code() == ErrorCode.UNAVAILABLE) {
                    throw e;
                }
                // not current: find() refuses it, and so does every connect
            }
        }
        return List.copyOf(rows);
    }

    /** The principal's row read, put on the wire now: a {@link RowStore.PendingRead} of its key. */
    @Override
    public LedgerReads.Pending send(Principal principal) {
        return new Sent(principal, reader.sendLast(key(principal)));
    }

    private record Sent(Principal principal, RowStore.PendingRead read) implements LedgerReads.Pending {
    }

    /**
     * The ledger half of the connect check from {@code pending} (this ledger's {@link #send} of
     * the attempt's principal; anything else is read now): as the file placement's, with its
     * wording. A read that cannot be answered now is {@code unavailable}.
     */
    @Override
    public ActorRow authorizeConnect(ConnectAttempt attempt, LedgerReads.Pending pending) {
        Optional<RowStore.Entry> entry = pending instanceof Sent sent && sent.principal().equals(attempt.principal())
                ? await(attempt.principal(), sent.read()) : read(reader, attempt.principal());
        return ConnectHalf.judge(attempt, () -> rowOf(attempt.principal(), entry));
    }

    /** True iff a row exists for the principal at exactly {@code lifecycleUid}; an unreadable row is not live. */
    @Override
    public boolean actorSourceIsLive(Principal principal, LifecycleUid lifecycleUid) {
        try {
            return find(principal).map(row -> row.lifecycleUid().equals(lifecycleUid)).orElse(false);
        } catch (CotalException e) {
            return false;
        }
    }

    private Optional<RowStore.Entry> read(RowStore rows, Principal principal) {
        try {
            return rows.lastEntry(key(principal));
        } catch (CotalException e) {
            throw unreadable(principal, e);
        }
    }

    private Optional<RowStore.Entry> await(Principal principal, RowStore.PendingRead read) {
        try {
            return reader.awaitEntry(read);
        } catch (CotalException e) {
            throw unreadable(principal, e);
        }
    }

    private static CotalException unreadable(Principal principal, CotalException e) {
        return new CotalException(ErrorCode.UNAVAILABLE, "the ledger row of " + principal
                + " cannot be read now; retry shortly", e);
    }

    private Optional<ActorRow> rowOf(Principal principal, Optional<RowStore.Entry> entry) {
        if (entry.isEmpty() || entry.get().op() == RowStore.Op.DELETE) {
            return Optional.empty();
        }
        return Optional.of(rowOf(principal, entry.get()));
    }

    private ActorRow rowOf(Principal principal, RowStore.Entry entry) {
        if (entry.op() != RowStore.Op.PUT) {
            throw new CotalException(ErrorCode.DATA_LOSS, "the ledger row of " + principal
                    + " is corrupt (a marker stands where a row belongs)");
        }
        return parses.parse(key(principal), entry.data(), data -> StoreRows.parse(principal, data));
    }

    private byte[] encode(ActorRow row) {
        byte[] bytes = ClosedJson.write(ClosedJson.cotal(), new Document(1, kindWord(row.kind()), row.owner().value(),
                row.actor().value(), row.scope(), row.allowSubscribe(), row.allowPublish(), row.role().orElse(null),
                row.parent().map(Principal::toString).orElse(null), row.label().orElse(null),
                row.tokenHash().orElse(null), row.lifecycleUid().value(), row.grantedAt()));
        if (bytes.length > MAX_ROW_BYTES) {
            throw CotalException.badRequest("grant", "its ledger row would take " + bytes.length + " bytes, more than "
                    + MAX_ROW_BYTES);
        }
        return bytes;
    }

    static String kindWord(ActorRow.Kind kind) {
        return kind == ActorRow.Kind.INTERACTIVE ? "interactive" : "managed";
    }

    static String rowName(ActorRow.Kind kind, Principal principal) {
        return "the " + (kind == null ? "" : kindWord(kind) + " ") + "ledger row of " + principal;
    }

    /** The closed parse of one stored row, a pure function of its bytes (and so remembered by them). */
    static final class StoreRows {
        private StoreRows() {
        }

        static ActorRow parse(Principal principal, byte[] data) {
            ActorRow.Kind kind = null;
            try {
                if (data.length > MAX_ROW_BYTES) {
                    throw CotalException.badRequest("row", "is larger than " + MAX_ROW_BYTES + " bytes");
                }
                com.fasterxml.jackson.databind.JsonNode tree = ClosedJson.tree(ClosedJson.cotal(), data, "row");
                com.fasterxml.jackson.databind.JsonNode word = tree.get("kind");
                if (word != null && "interactive".equals(word.asText(null)) && word.isTextual()) {
                    kind = ActorRow.Kind.INTERACTIVE;
                } else if (word != null && "managed".equals(word.asText(null)) && word.isTextual()) {
                    kind = ActorRow.Kind.MANAGED;
                } else {
                    throw CotalException.badRequest("row.kind", "must be interactive or managed");
                }
                String what = kindWord(kind) + " row";
                Document doc = ClosedJson.convert(ClosedJson.cotal(), tree, Document.class, what);
                if (doc.ver() == null || doc.ver() != 1) {
                    throw CotalException.badRequest(what + ".ver", "must be 1");
                }
                if (!principal.owner().value().equals(doc.owner()) || !principal.actor().value().equals(doc.actor())) {
                    throw CotalException.badRequest(what, "names another principal than its key");
                }
                return new ActorRow(kind, principal, doc.scope(), doc.allowSubscribe(), doc.allowPublish(),
                        Optional.ofNullable(doc.role()),
                        Optional.ofNullable(doc.parent()).map(parent -> Principal.parse(parent, "parent")),
                        Optional.ofNullable(doc.label()), Optional.ofNullable(doc.tokenHash()),
                        LifecycleUid.of(doc.lifecycleUid(), "lifecycleUid"), doc.grantedAt());
            } catch (CotalException e) {
                throw new CotalException(ErrorCode.DATA_LOSS, rowName(kind, principal) + " is corrupt (" + e.getMessage()
                        + ")", e);
            }
        }
    }
}
