package ai.cotal.auth.internal.plane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.Grant;
import ai.cotal.auth.LedgerStore;
import ai.cotal.auth.PlaneFixture;
import ai.cotal.auth.internal.ledger.Placement;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.Principal;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import io.nats.client.api.StreamInfoOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The open's placement table (SPEC §13.23 "Markers and the open"), row by row, on a real broker. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class LedgerPlacementOpenBrokerTest {
    private static final Principal LAPTOP = Principal.of("u_abcdefghijklmnopqrstuvwxyz", "laptop");
    private static final Grant CHAT = Grant.of(List.of("chat"), List.of(), List.of());
    private final PlaneFixture f = new PlaneFixture();

    @TempDir
    Path root;

    private AuthAuthorityPlane open(NatsBroker nats, LedgerStore ledger) {
        return AuthAuthorityPlane.open(f.options(nats, root.resolve("state")).ledger(ledger).build());
    }

    private CotalException refused(NatsBroker nats, LedgerStore ledger) {
        return assertThrows(CotalException.class, () -> open(nats, ledger).close());
    }

    private static Map<String, Long> ledgerSubjects(Connection admin) throws Exception {
        return admin.jetStreamManagement().getStreamInfo("KV_cotal_auth_alpha",
                StreamInfoOptions.filterSubjects("$KV.cotal_auth_alpha.ledger.>")).getStreamState().getSubjectMap();
    }

    private static void plantMarker(Connection admin, String json) throws Exception {
        ai.cotal.core.stores.SpaceStores.setupAuthority(admin, "alpha"); // as the open creates them
        admin.keyValue("cotal_auth_alpha").put(LedgerMarkers.STORE_KEY, json.getBytes(StandardCharsets.UTF_8));
    }

    private static String marker(long generation, String placement, String state) {
        return "{\"v\":1,\"generation\":" + generation + ",\"placement\":\"" + placement + "\",\"state\":\"" + state
                + "\",\"at\":\"" + Instant.now() + "\"}";
    }

    @Test
    void absentWithFilesOpensOnFilesAndWritesNothingUnderLedger(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = open(nats, LedgerStore.files()); Connection admin = f.admin(nats)) {
            assertEquals("files", plane.health().ledger());
            plane.ledger().grantActor(LAPTOP, CHAT);
            plane.pinIdp("https://idp.example.com");
            assertEquals(Map.of(), ledgerSubjects(admin), "the stream holds no ledger. subject");
            assertTrue(java.nio.file.Files.exists(root.resolve("state").resolve("idp.json")), "the pin is the file's");
        }
    }

    @Test
    void absentWithTheStoreCreatesTheMarkerAndASettledPlacementRefusesTheOtherOption(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (Connection admin = f.admin(nats)) {
            try (AuthAuthorityPlane plane = open(nats, LedgerStore.jetStream())) {
                assertEquals("store", plane.health().ledger());
                plane.ledger().grantActor(LAPTOP, CHAT);
            }
            var created = LedgerMarkers.storeMarker(LedgerMarkers.storeEntry(new ai.cotal.core.internal.kv.RowStore(admin,
                    "cotal_auth_alpha")));
            assertEquals(new LedgerMarkers.StoreMarker(1, Placement.STORE, false, created.at()), created);
            try (AuthAuthorityPlane again = open(nats, LedgerStore.jetStream())) {
                assertTrue(again.ledger().find(LAPTOP).isPresent(), "the store's row, read again");
            }
            CotalException files = refused(nats, LedgerStore.files());
            assertEquals(ErrorCode.FAILED_PRECONDITION, files.code());
            assertEquals("the ledger of space alpha is in store (generation 1); open with ledger(store)", files.getMessage());
        }
    }

    @Test
    void absentWithTheStoreOverAFileLedgerConflicts(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = open(nats, LedgerStore.files())) {
            plane.ledger().grantActor(LAPTOP, CHAT);
        }
        CotalException store = refused(nats, LedgerStore.jetStream());
        assertEquals(ErrorCode.CONFLICT, store.code());
        assertEquals("the state directory holds a file ledger: open with the files ledger and move it", store.getMessage());
        try (AuthAuthorityPlane plane = open(nats, LedgerStore.files()); Connection admin = f.admin(nats)) {
            assertTrue(plane.ledger().find(LAPTOP).isPresent(), "the refused open unwound: files opens again");
            assertEquals(Map.of(), ledgerSubjects(admin), "the refused open wrote no marker");
        }
    }

    @Test
    void settledAtFilesOpensOnFilesAndRefusesTheStore(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (Connection admin = f.admin(nats)) {
            plantMarker(admin, marker(1, "files", "settled"));
            LedgerMarkers.writeFileMarker(root.resolve("state"), new LedgerMarkers.FileMarker(1, Placement.FILES));
            try (AuthAuthorityPlane plane = open(nats, LedgerStore.files())) {
                assertEquals("files", plane.health().ledger());
            }
            CotalException store = refused(nats, LedgerStore.jetStream());
            assertEquals(ErrorCode.FAILED_PRECONDITION, store.code());
            assertEquals("the ledger of space alpha is in files (generation 1); open with ledger(files)", store.getMessage());
        }
    }

    @Test
    void aMoveThatDidNotFinishRefusesTheOtherOption(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (Connection admin = f.admin(nats)) {
            plantMarker(admin, marker(2, "store", "moving"));
            LedgerMarkers.writeFileMarker(root.resolve("state"), new LedgerMarkers.FileMarker(1, Placement.FILES));
            CotalException files = refused(nats, LedgerStore.files());
            assertEquals(ErrorCode.FAILED_PRECONDITION, files.code());
            assertEquals("a ledger move to store did not finish; open with ledger(store) to finish it", files.getMessage());
        }
    }

    @Test
    void aCorruptMarkerIsDataLossNamingItsKeyAndTheOpenUnwinds(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (Connection admin = f.admin(nats)) {
            for (String bad : List.of("{\"v\":1}", marker(0, "store", "settled"), marker(1, "elsewhere", "settled"),
                    marker(1, "store", "paused"), "not json")) {
                plantMarker(admin, bad);
                CotalException corrupt = refused(nats, LedgerStore.jetStream());
                assertEquals(ErrorCode.DATA_LOSS, corrupt.code(), bad);
                assertTrue(corrupt.getMessage().startsWith("ledger.placement is corrupt ("), corrupt.getMessage());
            }
            plantMarker(admin, marker(1, "store", "settled"));
            try (AuthAuthorityPlane plane = open(nats, LedgerStore.jetStream())) {
                assertEquals("store", plane.health().ledger(), "the claim was released by each refused open");
            }
        }
    }

    @Test
    void inconsistentMarkersConflictNamingBothGenerations(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (Connection admin = f.admin(nats)) {
            plantMarker(admin, marker(1, "store", "settled"));
            LedgerMarkers.writeFileMarker(root.resolve("state"), new LedgerMarkers.FileMarker(3, Placement.STORE));
            CotalException conflict = refused(nats, LedgerStore.jetStream());
            assertEquals(ErrorCode.CONFLICT, conflict.code());
            assertEquals("the ledger's markers disagree: ledger.placement is at generation 1, ledger-placement.json at"
                    + " generation 3", conflict.getMessage());
            plantMarker(admin, marker(2, "files", "settled"));
            LedgerMarkers.writeFileMarker(root.resolve("state"), new LedgerMarkers.FileMarker(3, Placement.FILES));
            assertEquals(ErrorCode.CONFLICT, refused(nats, LedgerStore.files()).code(), "at files too");
        }
    }
}
