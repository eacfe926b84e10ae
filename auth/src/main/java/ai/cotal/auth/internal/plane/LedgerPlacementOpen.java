package ai.cotal.auth.internal.plane;

import ai.cotal.auth.LedgerStore;
import ai.cotal.auth.internal.ledger.LedgerBackend;
import ai.cotal.auth.internal.ledger.Placement;
import ai.cotal.auth.internal.ledger.StoreActorLedger;
import ai.cotal.auth.internal.plane.LedgerMarkers.FileMarker;
import ai.cotal.auth.internal.plane.LedgerMarkers.StoreMarker;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.kv.RowStore;
import ai.cotal.core.internal.kv.StoreNames;
import io.nats.client.Connection;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * The open's placement step (SPEC §13.23 "Markers and the open"), run after the claim: reads the
 * store marker (a leader read on the writer) and the directory marker, checks that they are
 * consistent and that the plane's option agrees, and answers the backend to open on. A space
 * without a store marker opened on files writes nothing; one opened on the store with a directory
 * holding no ledger creates the marker {@code {1, store, settled}} (create-only). Stateless.
 */
final class LedgerPlacementOpen {
    private LedgerPlacementOpen() {
    }

    /** The backend the plane of {@code space} opens on, or the refusal of SPEC §13.23's table. */
    static LedgerBackend open(String space, LedgerStore option, Path stateDir, Connection writer, Connection reader,
            Clock clock) {
        String bucket = StoreNames.bucket("auth", space);
        RowStore rows = new RowStore(writer, bucket, Duration.ofSeconds(1));
        Placement wanted = option.name().equals("store") ? Placement.STORE : Placement.FILES;
        for (int round = 0; round < 2; round++) {
            Optional<ai.cotal.core.internal.kv.RowStore.Entry> entry = LedgerMarkers.storeEntry(rows);
            StoreMarker store = LedgerMarkers.storeMarker(entry);
            FileMarker file = LedgerMarkers.fileMarker(stateDir);
            boolean dirHoldsLedger = file.generation() == 0 && LedgerMarkers.holdsFileLedger(stateDir);
            requireConsistent(store, file, dirHoldsLedger, entry.isPresent());
            if (entry.isEmpty()) {
                if (wanted == Placement.FILES) {
                    return new FileActorLedger(stateDir, clock);
                }
                if (dirHoldsLedger) {
                    throw new CotalException(ErrorCode.CONFLICT, "the state directory holds a file ledger: open with the"
                            + " files ledger and move it");
                }
                byte[] created = LedgerMarkers.encode(new StoreMarker(1, Placement.STORE, false, clock.instant().toString()));
                try {
                    if (rows.create(LedgerMarkers.STORE_KEY, created).isPresent()) {
                        return store(writer, reader, bucket, clock);
                    }
                } catch (CotalException e) {
                    if (e.code() != ErrorCode.UNAVAILABLE) {
                        throw e;
                    }
                }
                continue; // another marker landed (or the answer was lost): decide once more from what stands
            }
            if (store.moving()) {
                if (store.placement() != wanted) {
                    throw new CotalException(ErrorCode.FAILED_PRECONDITION, "a ledger move to " + store.placement().word()
                            + " did not finish; open with ledger(" + store.placement().word() + ") to finish it");
                }
                throw new CotalException(ErrorCode.FAILED_PRECONDITION, "a ledger move to " + store.placement().word()
                        + " did not finish, and this plane cannot replay a move");
            }
            if (store.placement() != wanted) {
                throw new CotalException(ErrorCode.FAILED_PRECONDITION, "the ledger of space " + space + " is in "
                        + store.placement().word() + " (generation " + store.generation() + "); open with ledger("
                        + store.placement().word() + ")");
            }
            return wanted == Placement.STORE ? store(writer, reader, bucket, clock) : new FileActorLedger(stateDir, clock);
        }
        throw new CotalException(ErrorCode.UNAVAILABLE, LedgerMarkers.STORE_KEY + " cannot be written now; retry shortly");
    }

    private static LedgerBackend store(Connection writer, Connection reader, String bucket, Clock clock) {
        return new StoreActorLedger(writer, reader, bucket, clock);
    }

    /**
     * Consistent: equal generations; or the file absent, the directory holding no ledger and the
     * store marker not settled at files; or, during a move, the file at the generation before it.
     */
    private static void requireConsistent(StoreMarker store, FileMarker file, boolean dirHoldsLedger, boolean present) {
        if (store.generation() == file.generation()) {
            return;
        }
        if (file.generation() == 0 && !dirHoldsLedger && present && !(store.placement() == Placement.FILES
                && !store.moving())) {
            return;
        }
        if (store.moving() && file.generation() == store.generation() - 1) {
            return;
        }
        throw new CotalException(ErrorCode.CONFLICT, "the ledger's markers disagree: " + LedgerMarkers.STORE_KEY
                + " is at generation " + store.generation() + ", " + LedgerMarkers.FILE + " at generation "
                + file.generation());
    }
}
