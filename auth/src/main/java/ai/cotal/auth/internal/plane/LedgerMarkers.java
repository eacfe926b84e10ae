package ai.cotal.auth.internal.plane;

import ai.cotal.auth.internal.ledger.Placement;
import ai.cotal.auth.internal.text.StateFileRefusal;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.core.internal.kv.RowStore;
import ai.cotal.workspace.PrivateFiles;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/**
 * The two placement markers of a space's ledger (SPEC §13.23 "Markers and the open"): the auth
 * store's {@code ledger.placement} {@code {v: 1, generation >= 1, placement: files | store, state:
 * settled | moving, at}} and the state directory's {@code ledger-placement.json} {@code {ver: 1,
 * generation, placement}} (0600, written atomically, read with {@code idp.json}'s directory
 * checks). Each absent reads as generation 0 at {@code files}; a marker that does not read is
 * {@code data-loss} naming it. Stateless.
 */
final class LedgerMarkers {
    static final String STORE_KEY = "ledger.placement";
    static final String FILE = "ledger-placement.json";

    /** The store marker: {@code moving} names the move's target as its placement. */
    record StoreMarker(long generation, Placement placement, boolean moving, String at) {
        static final StoreMarker ABSENT = new StoreMarker(0, Placement.FILES, false, null);
    }

    /** The directory marker. */
    record FileMarker(long generation, Placement placement) {
        static final FileMarker ABSENT = new FileMarker(0, Placement.FILES);
    }

    private record StoreDocument(Integer v, Long generation, String placement, String state, String at) {
    }

    private record FileDocument(Integer ver, Long generation, String placement) {
    }

    private LedgerMarkers() {
    }

    /** The store marker as its leader answers it, with its revision (0 when none). */
    static Optional<RowStore.Entry> storeEntry(RowStore rows) {
        try {
            return rows.lastEntry(STORE_KEY);
        } catch (CotalException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, STORE_KEY + " cannot be read now; retry shortly", e);
        }
    }

    static StoreMarker storeMarker(Optional<RowStore.Entry> entry) {
        if (entry.isEmpty()) {
            return StoreMarker.ABSENT;
        }
        if (entry.get().op() != RowStore.Op.PUT) {
            throw new CotalException(ErrorCode.DATA_LOSS, STORE_KEY + " is corrupt (a marker stands where it belongs)");
        }
        try {
            StoreDocument doc = ClosedJson.read(ClosedJson.cotal(), entry.get().data(), StoreDocument.class, STORE_KEY);
            if (doc.v() == null || doc.v() != 1) {
                throw CotalException.badRequest("v", "must be 1");
            }
            if (doc.generation() == null || doc.generation() < 1) {
                throw CotalException.badRequest("generation", "must be at least 1");
            }
            if (!"settled".equals(doc.state()) && !"moving".equals(doc.state())) {
                throw CotalException.badRequest("state", "must be settled or moving");
            }
            if (doc.at() == null || doc.at().length() > 64) {
                throw CotalException.badRequest("at", "an ISO-8601 instant of at most 64 characters");
            }
            Instant.parse(doc.at());
            return new StoreMarker(doc.generation(), placement(doc.placement()), "moving".equals(doc.state()), doc.at());
        } catch (CotalException | java.time.DateTimeException e) {
            throw new CotalException(ErrorCode.DATA_LOSS, STORE_KEY + " is corrupt (" + e.getMessage() + ")", e);
        }
    }

    static byte[] encode(StoreMarker marker) {
        return ClosedJson.write(ClosedJson.cotal(), new StoreDocument(1, marker.generation(), marker.placement().word(),
                marker.moving() ? "moving" : "settled", marker.at()));
    }

    /** The directory marker of {@code stateDir}; absent (or no directory) reads as generation 0 at files. */
    static FileMarker fileMarker(Path stateDir) {
        Optional<byte[]> bytes;
        try { // the private-file calls name paths: the refusal names the marker
            if (!PrivateFiles.requirePrivateStateDirectory(stateDir)) {
                return FileMarker.ABSENT;
            }
            bytes = PrivateFiles.readNoFollow(stateDir.resolve(FILE));
        } catch (CotalException e) {
            throw StateFileRefusal.of(e, FILE + " cannot be read");
        }
        if (bytes.isEmpty()) {
            return FileMarker.ABSENT;
        }
        try {
            FileDocument doc = ClosedJson.read(ClosedJson.cotal(), bytes.get(), FileDocument.class, FILE);
            if (doc.ver() == null || doc.ver() != 1) {
                throw CotalException.badRequest("ver", "must be 1");
            }
            if (doc.generation() == null || doc.generation() < 1) {
                throw CotalException.badRequest("generation", "must be at least 1");
            }
            return new FileMarker(doc.generation(), placement(doc.placement()));
        } catch (CotalException e) {
            throw new CotalException(ErrorCode.DATA_LOSS, FILE + " is invalid (" + e.getMessage() + ")", e);
        }
    }

    /** Writes the directory marker (0600, atomically); only a move writes it. */
    static void writeFileMarker(Path stateDir, FileMarker marker) {
        try {
            PrivateFiles.ensureDirectory(stateDir, stateDir);
            PrivateFiles.write(stateDir.resolve(FILE), ClosedJson.write(ClosedJson.cotal(),
                    new FileDocument(1, marker.generation(), marker.placement().word())));
        } catch (CotalException e) {
            throw StateFileRefusal.of(e, FILE + " cannot be written");
        }
    }

    /** Whether the state directory holds a file ledger: a row file of either kind, or {@code idp.json}. */
    static boolean holdsFileLedger(Path stateDir) {
        try {
            if (!PrivateFiles.requirePrivateStateDirectory(stateDir)) {
                return false;
            }
        } catch (CotalException e) {
            throw StateFileRefusal.of(e, "the state directory cannot be read");
        }
        if (Files.exists(stateDir.resolve("idp.json"), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return true;
        }
        for (String kind : new String[] {FileActorLedger.INTERACTIVE, FileActorLedger.MANAGED}) {
            Path dir = stateDir.resolve(kind);
            if (!Files.isDirectory(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            try (DirectoryStream<Path> rows = Files.newDirectoryStream(dir, "*.json")) {
                if (rows.iterator().hasNext()) {
                    return true;
                }
            } catch (IOException e) {
                throw new CotalException(ErrorCode.UNAVAILABLE, "the " + kind + " ledger directory cannot be listed");
            }
        }
        return false;
    }

    private static Placement placement(String word) {
        for (Placement p : Placement.values()) {
            if (p.word().equals(word)) {
                return p;
            }
        }
        throw CotalException.badRequest("placement", "must be files or store");
    }
}
