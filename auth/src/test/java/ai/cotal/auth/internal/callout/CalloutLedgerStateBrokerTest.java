package ai.cotal.auth.internal.callout;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.internal.callout.AuthCallout;
import ai.cotal.auth.InboxNonce;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.id.Principal;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.workspace.CotalRoot;
import io.nats.client.Connection;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issues #16.4 and #16.7 through the callout on a real broker: a refusal the broker logs names the
 * kind of failure, never a state path or exception text; a symlinked ledger directory is refused on
 * read; group/world-open state directories are narrowed to 0700 and another user's are refused.
 * The plane reads the standard layout {@code <root>/.cotal/auth/space.<hex>}.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class CalloutLedgerStateBrokerTest {
    private static final boolean ROOT = new com.sun.security.auth.module.UnixSystem().getUid() == 0;

    private static final String CALLOUT_ERROR = "Auth callout service returned an error";

    private final CalloutFixture f = new CalloutFixture();

    @TempDir
    Path root;

    private Path stateDir() {
        return CotalRoot.userAuthStateDir(root, "alpha");
    }

    /** Connects where the callout must refuse, and returns the reason the broker logged. */
    private String refusal(NatsBroker nats, String bearer) {
        long mark = nats.log().mark();
        Exception e = f.refused(nats, bearer, InboxNonce.forPrincipal(Principal.of(CalloutFixture.OWNER, "laptop")));
        assertTrue(e.getMessage().contains("Authorization Violation"), e.getMessage());
        String line = nats.log().await(mark, l -> l.contains(CALLOUT_ERROR), Duration.ofSeconds(5))
                .orElseThrow(() -> new AssertionError("no callout refusal in the broker's log:\n" + nats.logTail(40)));
        return line.substring(line.indexOf(CALLOUT_ERROR));
    }

    private void assertNoInternals(String reason) {
        assertFalse(reason.contains(root.toString()) || reason.contains(".cotal") || reason.contains(".json"),
                "no state path: " + reason);
        assertFalse(reason.matches("(?s).*[A-Za-z]*(Exception|Error)\\b.*"), "no exception text: " + reason);
    }

    @Test
    void anUnreadableLedgerRowIsRefusedWithoutAPathOrExceptionText(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = f.open(nats, stateDir()); AuthCallout callout = f.responder(nats, plane)) {
            String bearer = f.bearer(plane, "laptop", List.of(), List.of(), Duration.ofMinutes(5));
            Path row = stateDir().resolve("actors/" + CalloutFixture.OWNER + ".laptop.json");
            Files.delete(row);
            Files.createDirectory(row); // a read that fails for root too (EISDIR)
            String reason = refusal(nats, bearer);
            assertTrue(reason.contains("the interactive ledger row of " + CalloutFixture.OWNER + ".laptop cannot be read"),
                    reason);
            assertNoInternals(reason);
        }
    }

    @Test
    void aSymlinkedActorsDirectoryIsRefusedOnRead(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = f.open(nats, stateDir()); AuthCallout callout = f.responder(nats, plane)) {
            String bearer = f.bearer(plane, "laptop", List.of(), List.of(), Duration.ofMinutes(5));
            Path actors = stateDir().resolve("actors");
            Path planted = Files.move(actors, Files.createDirectory(root.resolve("planted")).resolve("actors"));
            Files.createSymbolicLink(actors, planted); // the same rows, reached through a link
            String reason = refusal(nats, bearer);
            assertTrue(reason.contains("actors directory: a symbolic link is refused"), reason);
            assertNoInternals(reason);
        }
    }

    @Test
    void openStateDirectoriesAreNarrowedAndAnotherUsersAreRefused(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = f.open(nats, stateDir()); AuthCallout callout = f.responder(nats, plane)) {
            String bearer = f.bearer(plane, "laptop", List.of(), List.of(), Duration.ofMinutes(5));
            List<Path> chain = List.of(root.resolve(".cotal"), root.resolve(".cotal/auth"), stateDir(),
                    stateDir().resolve("actors"));
            for (Path dir : chain) { // as a pre-existing tree another local user could plant rows in
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
            }
            try (CalloutFixture.Client client = f.connect(nats, bearer, InboxNonce.forPrincipal(Principal.of(CalloutFixture.OWNER, "laptop")))) {
                assertEquals(Connection.Status.CONNECTED, client.connection().getStatus());
            }
            for (Path dir : chain) {
                assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)),
                        "narrowed by the connect's read: " + root.relativize(dir));
            }
            if (ROOT) { // only root can hand a directory to another user (FileActorLedgerTest covers others)
                Files.setAttribute(stateDir().resolve("actors"), "unix:uid", 65534, LinkOption.NOFOLLOW_LINKS);
                String reason = refusal(nats, bearer);
                assertTrue(reason.contains("actors directory: owned by another user"), reason);
                assertNoInternals(reason);
            }
        }
    }
}
