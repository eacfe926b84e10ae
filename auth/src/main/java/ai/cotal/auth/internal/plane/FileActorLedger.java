package ai.cotal.auth.internal.plane;

import ai.cotal.auth.ActorLedger;
import ai.cotal.auth.ActorRow;
import ai.cotal.auth.ActorTokens;
import ai.cotal.auth.ConnectAttempt;
import ai.cotal.auth.Grant;
import ai.cotal.auth.IdpPin;
import ai.cotal.auth.internal.ledger.LedgerBackend;
import ai.cotal.auth.internal.ledger.Placement;
import ai.cotal.auth.internal.text.StateFileRefusal;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.Actor;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.workspace.PrivateFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The file-backed actor ledger of one space (SPEC §13.14), behind {@link ActorLedger}: files under
 * the state directory, {@code actors/<owner>.<actor>.json} (interactive) and {@code managed-actors/<owner>.<actor>.json}
 * (managed), one closed JSON row per principal, written atomically at 0600 in 0700 directories.
 * Every read is fresh and fails closed: a symbolic link, a wrong version, a row of the wrong kind
 * for its directory, a row naming another principal, or the same principal in both directories
 * denies. Every directory on the way to a row (the state directory, its ancestors up to the
 * nearest {@code .cotal}, and the kind's directory) is checked on every read and write with
 * {@link PrivateFiles#requirePrivateDirectory}: a symbolic link or a directory of another user
 * refuses, group or other access is narrowed to 0700. Messages name the row's kind and principal
 * or the directory's role, never a path (a refusal of a connect reaches the broker's log). A
 * missing directory is an empty ledger that denies everyone. The file placement of the ledger SPI
 * (SPEC §13.23): nothing is sent ahead of a connect check, and its pins are {@link IdpPin}'s on
 * the state directory. Thread-safe for reads; one writer per state directory.
 */
public final class FileActorLedger implements LedgerBackend {
    static final String INTERACTIVE = "actors";
    static final String MANAGED = "managed-actors";

    private final Path stateDir;
    private final Clock clock;
    /** The last parse of each row file's bytes: the file is read fresh every time, parsed only when it changed. */
    private final ai.cotal.core.internal.json.ParseMemo<ActorRow> rows = new ai.cotal.core.internal.json.ParseMemo<>(4096);

    /** The ledger under {@code stateDir}; nothing is read or written until a call. */
    public FileActorLedger(Path stateDir, Clock clock) {
        this.stateDir = Objects.requireNonNull(stateDir, "stateDir").toAbsolutePath().normalize();
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Checks the state directory and its private ancestors; false when the state directory is absent. */
    private boolean stateDirectoryPresent() {
        return PrivateFiles.requirePrivateStateDirectory(stateDir);
    }

    private static String role(String dir) {
        return dir + " directory";
    }

    private static String rowName(String dir, Principal principal) {
        return "the " + (dir.equals(INTERACTIVE) ? "interactive" : "managed") + " ledger row of " + principal;
    }

    private record Document(Integer ver, String owner, String actor, List<String> scope, List<String> allowSubscribe,
            List<String> allowPublish, String role, String parent, String label, String tokenHash, String lifecycleUid,
            String grantedAt) {
    }

    @Override
    public ActorRow grantActor(Principal principal, Grant grant) {
        return write(new ActorRow(ActorRow.Kind.INTERACTIVE, principal, grant.scope(), grant.allowSubscribe(),
                grant.allowPublish(), grant.role(), grant.parent(), grant.label(), Optional.empty(), ActorTokens.newLifecycleUid(),
                clock.instant().toString()));
    }

    @Override
    public ActorRow grantManagedActor(Principal principal, Grant grant, String tokenHash, LifecycleUid lifecycleUid) {
        return write(new ActorRow(ActorRow.Kind.MANAGED, principal, grant.scope(), grant.allowSubscribe(),
                grant.allowPublish(), grant.role(), grant.parent(), grant.label(), Optional.ofNullable(tokenHash), lifecycleUid,
                clock.instant().toString()));
    }

    @Override
    public void revoke(Principal principal) {
        Objects.requireNonNull(principal, "principal");
        if (!stateDirectoryPresent()) {
            return;
        }
        for (String dir : List.of(INTERACTIVE, MANAGED)) {
            if (!PrivateFiles.requirePrivateDirectory(stateDir.resolve(dir), role(dir))) {
                continue;
            }
            try {
                Files.deleteIfExists(file(dir, principal));
            } catch (IOException e) {
                throw new CotalException(ErrorCode.UNAVAILABLE, "cannot revoke " + principal + " (a file-system error"
                        + " on " + rowName(dir, principal) + ")", e);
            }
        }
    }

    @Override
    public Optional<ActorRow> find(Principal principal) {
        Objects.requireNonNull(principal, "principal");
        if (!stateDirectoryPresent()) {
            return Optional.empty();
        }
        Optional<ActorRow> interactive = read(INTERACTIVE, ActorRow.Kind.INTERACTIVE, principal);
        Optional<ActorRow> managed = read(MANAGED, ActorRow.Kind.MANAGED, principal);
        if (interactive.isPresent() && managed.isPresent()) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, principal
                    + " is in both the interactive and the managed ledger: denied until one is removed");
        }
        return interactive.or(() -> managed);
    }

    @Override
    public List<ActorRow> interactiveRows(Owner owner) {
        Objects.requireNonNull(owner, "owner");
        Path dir = stateDir.resolve(INTERACTIVE);
        if (!stateDirectoryPresent() || !PrivateFiles.requirePrivateDirectory(dir, role(INTERACTIVE))) {
            return List.of();
        }
        java.util.SortedSet<String> actors = new java.util.TreeSet<>();
        try (java.nio.file.DirectoryStream<Path> files = Files.newDirectoryStream(dir, owner + ".*.json")) {
            for (Path file : files) {
                String name = file.getFileName().toString();
                String actor = name.substring(owner.value().length() + 1, name.length() - ".json".length());
                if (Actor.matches(actor)) {
                    actors.add(actor);
                }
            }
        } catch (IOException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "cannot list the interactive ledger rows of " + owner
                    + " (a file-system error)", e);
        }
        List<ActorRow> rows = new java.util.ArrayList<>();
        for (String actor : actors) {
            try {
                find(new Principal(owner, new Actor(actor))).filter(row -> row.kind() == ActorRow.Kind.INTERACTIVE).ifPresent(rows::add);
            } catch (CotalException e) {
                // not current: find() refuses it, and so does every connect
            }
        }
        return List.copyOf(rows);
    }

    /** Nothing: the row file is read at {@link #authorizeConnect(ConnectAttempt, Pending)}. */
    @Override
    public Pending send(Principal principal) {
        return NOTHING_SENT;
    }

    /** {@link #authorizeConnect(ConnectAttempt)}: the file is read now, whatever {@code pending} is. */
    @Override
    public ActorRow authorizeConnect(ConnectAttempt attempt, Pending pending) {
        return authorizeConnect(attempt);
    }

    /** {@link IdpPin#read} on the state directory. */
    @Override
    public Optional<IdpPin> idpPin() {
        return IdpPin.read(stateDir);
    }

    /** {@link IdpPin#pin} on the state directory. */
    @Override
    public IdpPin pinStock(String url) {
        return IdpPin.pin(stateDir, url);
    }

    /** {@link IdpPin#pinOidc} on the state directory. */
    @Override
    public IdpPin pinOidc(String issuer, String clientId, List<String> algorithms) {
        return IdpPin.pinOidc(stateDir, issuer, clientId, algorithms);
    }

    @Override
    public Placement placement() {
        return Placement.FILES;
    }

    /**
     * The ledger half of a connect: the row exists, the requested scope is within the row's and
     * the lifecycle uid is the row's. Refusals are {@code permission-denied}, worded without paths
     * or exception text (through the callout they reach the broker's log). Only the connect check
     * ({@link CredentialRows#authorize}) asks it.
     */
    ActorRow authorizeConnect(ConnectAttempt attempt) {
        return ai.cotal.auth.internal.ledger.ConnectHalf.judge(attempt, () -> find(attempt.principal()), true);
    }

    /** True iff a row exists for the principal with exactly {@code lifecycleUid}; unreadable rows are not live. */
    @Override
    public boolean actorSourceIsLive(Principal principal, LifecycleUid lifecycleUid) {
        try {
            return find(principal).map(row -> row.lifecycleUid().equals(lifecycleUid)).orElse(false);
        } catch (CotalException e) {
            return false;
        }
    }

    private ActorRow write(ActorRow row) {
        String other = row.kind() == ActorRow.Kind.INTERACTIVE ? MANAGED : INTERACTIVE;
        if (Files.exists(file(other, row.principal()))) {
            throw new CotalException(ErrorCode.ALREADY_EXISTS, row.principal() + " is already in the "
                    + (other.equals(MANAGED) ? "managed" : "interactive") + " ledger: revoke it there first");
        }
        String dir = row.kind() == ActorRow.Kind.INTERACTIVE ? INTERACTIVE : MANAGED;
        Path file = file(dir, row.principal());
        String name = rowName(dir, row.principal());
        try { // the private-file calls name paths: the refusals name the row instead
            PrivateFiles.ensureDirectory(stateDir, file.getParent()); // creates what is missing, checks the kind's directory
            stateDirectoryPresent(); // and the state directory with its ancestors up to .cotal
        } catch (CotalException e) {
            throw StateFileRefusal.of(e, "the directories of " + name + " cannot be made ready");
        }
        try {
            PrivateFiles.write(file, ClosedJson.write(ClosedJson.cotal(), new Document(1, row.owner().value(),
                    row.actor().value(), row.scope(), row.allowSubscribe(), row.allowPublish(), row.role().orElse(null),
                    row.parent().map(Principal::toString).orElse(null), row.label().orElse(null),
                    row.tokenHash().orElse(null), row.lifecycleUid().value(),
                    row.grantedAt())));
        } catch (CotalException e) {
            throw StateFileRefusal.of(e, name + " cannot be written");
        }
        if (Files.exists(file(other, row.principal()))) {
            try {
                Files.deleteIfExists(file); // the other ledger gained this principal meanwhile: undo our write
            } catch (IOException ignored) {
                // find() denies the ambiguous principal anyway.
            }
            throw new CotalException(ErrorCode.CONFLICT, row.principal() + " was granted in the other ledger meanwhile");
        }
        return row;
    }

    private Optional<ActorRow> read(String dir, ActorRow.Kind kind, Principal principal) {
        if (!PrivateFiles.requirePrivateDirectory(stateDir.resolve(dir), role(dir))) {
            return Optional.empty();
        }
        Path file = file(dir, principal);
        String name = rowName(dir, principal);
        Optional<byte[]> bytes;
        try {
            bytes = PrivateFiles.readNoFollow(file);
        } catch (CotalException e) { // its message names the path: say which row instead
            if (e.code() == ErrorCode.PERMISSION_DENIED) {
                throw new CotalException(ErrorCode.PERMISSION_DENIED, name + " is a symbolic link: refused", e);
            }
            throw new CotalException(ErrorCode.UNAVAILABLE, name + " cannot be read (a file-system read error)", e);
        }
        if (bytes.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(rows.parse(dir + "/" + principal, bytes.get(), data -> parse(kind, name, principal, data)));
    }

    /** The closed parse of one ledger row: a pure function of its bytes, so {@link #rows} may remember it. */
    private static ActorRow parse(ActorRow.Kind kind, String name, Principal principal, byte[] data) {
        String what = (kind == ActorRow.Kind.INTERACTIVE ? "interactive" : "managed") + " row";
        try {
            Document doc = ClosedJson.read(ClosedJson.cotal(), data, Document.class, what);
            if (doc.ver() == null || doc.ver() != 1) {
                throw CotalException.badRequest(what + ".ver", "must be 1");
            }
            if (!principal.owner().value().equals(doc.owner()) || !principal.actor().value().equals(doc.actor())) {
                throw CotalException.badRequest(what, "names another principal");
            }
            return new ActorRow(kind, principal, doc.scope(), doc.allowSubscribe(), doc.allowPublish(),
                    Optional.ofNullable(doc.role()),
                    Optional.ofNullable(doc.parent()).map(parent -> Principal.parse(parent, "parent")),
                    Optional.ofNullable(doc.label()), Optional.ofNullable(doc.tokenHash()),
                    LifecycleUid.of(doc.lifecycleUid(), "lifecycleUid"), doc.grantedAt());
        } catch (CotalException e) {
            throw new CotalException(ErrorCode.DATA_LOSS, name + " is corrupt (" + e.getMessage() + ")", e);
        }
    }

    private Path file(String dir, Principal principal) {
        return stateDir.resolve(dir).resolve(principal + ".json");
    }
}
