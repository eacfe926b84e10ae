package ai.cotal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.PlaneConnection.Role;
import ai.cotal.auth.PlaneConnection.Status;
import ai.cotal.core.creds.Creds;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.workspace.SecretKeys;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The plane handle's {@code connections()} view and its {@code closed()} signal, on the real broker. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class PlaneHandleBrokerTest {
    private final PlaneFixture f = new PlaneFixture();

    @TempDir
    Path stateDir;

    private static Map<Role, PlaneConnection> byRole(AuthAuthorityPlane plane) {
        return plane.connections().stream().collect(Collectors.toMap(PlaneConnection::role, Function.identity()));
    }

    @Test
    void connectionsShowEachAuthorityConnectionAndClosedCompletesOnceCloseFinished(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).serviceEndpoints(true).build());
        List<PlaneConnection> open = plane.connections();
        assertEquals(List.of(Role.WRITER, Role.READER, Role.BARRIER, Role.ISSUER, Role.DISCOVERY, Role.LEDGER_SCANNER,
                Role.RECORDS_SCANNER, Role.ADMIN), open.stream().map(PlaneConnection::role).toList(), "boot order");
        for (PlaneConnection c : open) {
            assertEquals("cotal:" + c.role().label() + ":alpha", c.name());
            assertEquals(Status.CONNECTED, c.status(), c.name());
            assertEquals(nats.serverId(), c.serverId().orElseThrow(), c.name());
            assertTrue(c.cid().orElseThrow() > 0, c.name());
        }
        assertEquals(open.size(), open.stream().mapToLong(c -> c.cid().getAsLong()).distinct().count(), "one cid each");
        assertThrows(UnsupportedOperationException.class, () -> plane.connections().clear(), "read-only");

        assertTrue(plane.fenced().complete("not the plane's"), "a caller completes only its own copy");
        assertFalse(plane.fenced().isDone(), "the plane is not fenced by a caller");
        plane.bearers().jwks();
        assertFalse(plane.closed().isDone());

        plane.close();
        plane.closed().get(5, TimeUnit.SECONDS);
        for (PlaneConnection c : plane.connections()) {
            assertEquals(Status.CLOSED, c.status(), c.name());
            assertTrue(c.serverId().isEmpty() && c.cid().isEmpty(), "nothing known of a closed connection: " + c);
        }
    }

    @Test
    void aFencedPlaneShowsItsLostScannerAndIsClosedOnlyByClose(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
        assertFalse(byRole(plane).containsKey(Role.DISCOVERY), "no discovery connection without service endpoints");
        long scannerCid = byRole(plane).get(Role.LEDGER_SCANNER).cid().orElseThrow();
        long kicked = ScannerKick.kick(nats, f.space.accountPublicKey(), ScannerKick.ledgerScanner("alpha"),
                Creds.parse(f.store.getText(SecretKeys.membershipObserverCredsKey("alpha")).orElseThrow()), f.evictor);
        assertEquals(kicked, scannerCid, "the view shows the cid the broker gave the scanner");
        plane.fenced().get(10, TimeUnit.SECONDS);

        Map<Role, PlaneConnection> fenced = byRole(plane);
        PlaneConnection lost = fenced.get(Role.LEDGER_SCANNER);
        assertNotEquals(Status.CONNECTED, lost.status(), "the kicked scanner is lost (it never reconnects)");
        assertTrue(lost.serverId().isEmpty() && lost.cid().isEmpty(), lost.toString());
        assertEquals(Status.CONNECTED, fenced.get(Role.WRITER).status());
        assertFalse(plane.closed().isDone(), "a fence alone does not close the plane");

        plane.close();
        assertTrue(plane.closed().isDone());
        assertTrue(plane.connections().stream().allMatch(c -> c.status() == Status.CLOSED), plane.connections().toString());
    }

    @Test
    void aCloseThatCannotReleaseIsNotClosedUntilItsRetryFinishes(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
        nats.stop();
        PlaneClaimRefusal unreachable = assertThrows(PlaneClaimRefusal.class, plane::close);
        assertEquals(PlaneClaimRefusal.Reason.RELEASE_UNREACHABLE, unreachable.reason());
        assertFalse(plane.closed().isDone(), "the barrier and the claim are kept for the retry");
        assertNotEquals(Status.CONNECTED, byRole(plane).get(Role.BARRIER).status(), "the broker is down");
        assertEquals(Status.CLOSED, byRole(plane).get(Role.READER).status());

        nats.restart();
        plane.close();
        plane.closed().get(5, TimeUnit.SECONDS);
    }
}
