package ai.cotal.auth.internal.plane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.ConnectAttempt;
import ai.cotal.auth.Grant;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileActorLedgerTest {
    /** Only root can hand a directory to another user; anyone else finds one root owns. */
    static final boolean ROOT = new com.sun.security.auth.module.UnixSystem().getUid() == 0;

    @TempDir
    Path dir;

    private FileActorLedger ledger() {
        return new FileActorLedger(dir, Clock.systemUTC());
    }

    private static Grant grant(String... scope) {
        return Grant.of(List.of(scope), List.of("general"), List.of("general"));
    }

    /** The ledger's half of a connect reads no credential row: any id stands in. */
    private static final CredentialId CREDENTIAL = new CredentialId("abcdefghijklmnopqrstuvwxyz");

    private static ConnectAttempt attempt(ActorRow row, String... scope) {
        return new ConnectAttempt(row.principal(), List.of(scope), row.lifecycleUid(), CREDENTIAL);
    }

    @Test
    void grantsAreWrittenPrivatelyAndEveryRegrantMintsAFreshUid() throws Exception {
        ActorRow first = ledger().grantActor(Principal.of("u_ownerownerownerownerowners", "laptop"), grant("chat"));
        Path file = dir.resolve("actors/u_ownerownerownerownerowners.laptop.json");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())));
        ActorRow second = ledger().grantActor(Principal.of("u_ownerownerownerownerowners", "laptop"), grant("chat"));
        assertNotEquals(first.lifecycleUid(), second.lifecycleUid());
        CotalException stale = assertThrows(CotalException.class, () -> ledger().authorizeConnect(attempt(first, "chat")));
        assertEquals(ErrorCode.PERMISSION_DENIED, stale.code());
        ledger().authorizeConnect(attempt(second, "chat"));
    }

    @Test
    void revokingAnActorMakesTheNextConnectFail() {
        ActorRow row = ledger().grantActor(Principal.of("u_ownerownerownerownerowners", "laptop"), grant("chat"));
        ledger().authorizeConnect(attempt(row, "chat"));
        ledger().revoke(Principal.of("u_ownerownerownerownerowners", "laptop"));
        CotalException e = assertThrows(CotalException.class, () -> ledger().authorizeConnect(attempt(row, "chat")));
        assertTrue(e.getMessage().contains("not (or no longer) granted"), e.getMessage());
        assertFalse(ledger().actorSourceIsLive(Principal.of("u_ownerownerownerownerowners", "laptop"), row.lifecycleUid()));
    }

    @Test
    void aScopeBeyondTheGrantIsRefused() {
        ActorRow row = ledger().grantActor(Principal.of("u_ownerownerownerownerowners", "laptop"), grant("chat"));
        CotalException e = assertThrows(CotalException.class, () -> ledger().authorizeConnect(attempt(row, "chat", "admin")));
        assertTrue(e.getMessage().contains("admin"), e.getMessage());
    }

    @Test
    void aCorruptRowDeniesOnlyItsActor() throws Exception {
        ActorRow good = ledger().grantActor(Principal.of("u_ownerownerownerownerowners", "laptop"), grant("chat"));
        ActorRow bad = ledger().grantActor(Principal.of("u_ownerownerownerownerowners", "phone"), grant("chat"));
        Files.writeString(dir.resolve("actors/u_ownerownerownerownerowners.phone.json"), "{\"ver\":1,\"owner\":\"u_ownerownerownerownerowners\"");
        assertThrows(CotalException.class, () -> ledger().authorizeConnect(attempt(bad, "chat")));
        ledger().authorizeConnect(attempt(good, "chat"));
    }

    @Test
    void anOwnersCurrentInteractiveRowsAreTheOnesThatRead() throws Exception {
        assertEquals(List.of(), ledger().interactiveRows(new ai.cotal.core.id.Owner("u_ownerownerownerownerowners")), "no directory, no rows");
        ActorRow laptop = ledger().grantActor(Principal.of("u_ownerownerownerownerowners", "laptop"), grant("chat"));
        ledger().grantActor(Principal.of("u_ownerownerownerownerowners", "phone"), grant("chat"));
        ledger().grantActor(Principal.of("u_ownerownerownerownerowner2", "desk"), grant("chat"));
        ledger().grantManagedActor(Principal.of("u_ownerownerownerownerowners", "agent1"), grant("chat"), "b".repeat(64), new LifecycleUid("c".repeat(26)));
        Files.writeString(dir.resolve("actors/u_ownerownerownerownerowners.phone.json"), "{\"ver\":1,\"owner\":\"u_ownerownerownerownerowners\"");
        Files.writeString(dir.resolve("actors/u_ownerownerownerownerowners.not.an.actor.json"), "{}");
        assertEquals(List.of(laptop), ledger().interactiveRows(new ai.cotal.core.id.Owner("u_ownerownerownerownerowners")),
                "a corrupt row, a managed row, another owner's row and a stray file are not current");
        ledger().revoke(Principal.of("u_ownerownerownerownerowners", "laptop"));
        assertEquals(List.of(), ledger().interactiveRows(new ai.cotal.core.id.Owner("u_ownerownerownerownerowners")));
    }

    @Test
    void readsFailClosed() throws Exception {
        ActorRow row = ledger().grantActor(Principal.of("u_ownerownerownerownerowners", "laptop"), grant("chat"));
        Path file = dir.resolve("actors/u_ownerownerownerownerowners.laptop.json");
        String json = Files.readString(file);
        Files.writeString(file, json.replace("\"actor\":\"laptop\"", "\"actor\":\"phone\""));
        assertThrows(CotalException.class, () -> ledger().authorizeConnect(attempt(row, "chat")), "another principal");
        Files.writeString(file, json.replace("\"ver\":1", "\"ver\":2"));
        assertThrows(CotalException.class, () -> ledger().authorizeConnect(attempt(row, "chat")), "wrong version");
        Files.writeString(file, json.replace("\"ver\":1", "\"ver\":1,\"tokenHash\":\"" + "a".repeat(64) + "\""));
        assertThrows(CotalException.class, () -> ledger().authorizeConnect(attempt(row, "chat")), "wrong kind");
        Files.delete(file);
        Path elsewhere = Files.writeString(dir.resolve("elsewhere.json"), json);
        Files.createSymbolicLink(file, elsewhere);
        assertThrows(CotalException.class, () -> ledger().authorizeConnect(attempt(row, "chat")), "symlink");
    }

    @Test
    void theSamePrincipalInBothLedgersIsDenied() throws Exception {
        ActorRow row = ledger().grantManagedActor(Principal.of("u_ownerownerownerownerowners", "agent1"), grant("chat"), "b".repeat(64),
                new LifecycleUid("abcdefghijklmnopqrstuvwxyz"));
        assertThrows(CotalException.class, () -> ledger().grantActor(Principal.of("u_ownerownerownerownerowners", "agent1"), grant("chat")));
        Files.createDirectories(dir.resolve("actors"));
        Files.copy(dir.resolve("managed-actors/u_ownerownerownerownerowners.agent1.json"), dir.resolve("actors/u_ownerownerownerownerowners.agent1.json"));
        CotalException e = assertThrows(CotalException.class, () -> ledger().authorizeConnect(attempt(row, "chat")));
        assertEquals(ErrorCode.PERMISSION_DENIED, e.code());
    }

    @Test
    void aMissingDirectoryIsAnEmptyLedgerThatDeniesEveryone() {
        FileActorLedger empty = new FileActorLedger(dir.resolve("nothing-here"), Clock.systemUTC());
        assertEquals(ErrorCode.PERMISSION_DENIED, assertThrows(CotalException.class, () -> empty.authorizeConnect(
                new ConnectAttempt(Principal.of("u_xxxxxxxxxxxxxxxxxxxxxxxxxx", "y"), List.of(),
                        new LifecycleUid("abcdefghijklmnopqrstuvwxyz"), CREDENTIAL))).code());
    }

    @Test
    void aSymlinkedKindDirectoryIsRefusedOnReadByItsRole() throws Exception {
        ActorRow row = ledger().grantActor(Principal.of("u_ownerownerownerownerowners", "laptop"), grant("chat"));
        Path outside = Files.move(dir.resolve("actors"), Files.createDirectory(dir.resolve("elsewhere")).resolve("actors"));
        Files.createSymbolicLink(dir.resolve("actors"), outside);
        CotalException e = assertThrows(CotalException.class, () -> ledger().authorizeConnect(attempt(row, "chat")));
        assertEquals(ErrorCode.PERMISSION_DENIED, e.code());
        assertEquals("actors directory: a symbolic link is refused", e.getMessage());
        assertEquals(ErrorCode.PERMISSION_DENIED, assertThrows(CotalException.class,
                () -> ledger().find(Principal.of("u_ownerownerownerownerowners", "laptop"))).code());
        assertFalse(ledger().actorSourceIsLive(Principal.of("u_ownerownerownerownerowners", "laptop"), row.lifecycleUid()));
        assertThrows(CotalException.class, () -> ledger().grantActor(Principal.of("u_ownerownerownerownerowners", "phone"), grant("chat")),
                "writes refuse it too");
    }

    @Test
    void openDirectoriesFromDotCotalDownAreNarrowedAndAnotherUsersAreRefused() throws Exception {
        Path stateDir = dir.resolve("root/.cotal/auth/space.616c706861");
        FileActorLedger ledger = new FileActorLedger(stateDir, Clock.systemUTC());
        ActorRow row = ledger.grantActor(Principal.of("u_ownerownerownerownerowners", "laptop"), grant("chat"));
        List<Path> chain = List.of(dir.resolve("root/.cotal"), dir.resolve("root/.cotal/auth"), stateDir,
                stateDir.resolve("actors"));
        for (Path p : chain) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxrwxrwx"));
        }
        Files.setPosixFilePermissions(dir.resolve("root"), PosixFilePermissions.fromString("rwxr-xr-x"));
        ledger.authorizeConnect(attempt(row, "chat"));
        for (Path p : chain) {
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(p)), p.toString());
        }
        assertEquals("rwxr-xr-x", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("root"))),
                "nothing above .cotal is touched");

        Path foreign = ROOT ? stateDir.resolve("actors") : Path.of("/usr"); // only root can hand a directory over
        if (ROOT) {
            Files.setAttribute(foreign, "unix:uid", 65534, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        }
        FileActorLedger planted = ROOT ? ledger : new FileActorLedger(foreign, Clock.systemUTC());
        CotalException e = assertThrows(CotalException.class, () -> planted.authorizeConnect(attempt(row, "chat")));
        assertEquals(ErrorCode.PERMISSION_DENIED, e.code());
        assertTrue(e.getMessage().contains(ROOT ? "actors directory: owned by another user"
                : "state directory: owned by another user"), e.getMessage());
        assertFalse(e.getMessage().contains("/"), e.getMessage());
        assertEquals(ErrorCode.FAILED_PRECONDITION, assertThrows(CotalException.class,
                () -> planted.find(Principal.of("u_ownerownerownerownerowners", "laptop"))).code());
    }

    @Test
    void anUnreadableRowIsRefusedWithoutAPathOrExceptionText() throws Exception {
        ActorRow row = ledger().grantActor(Principal.of("u_ownerownerownerownerowners", "laptop"), grant("chat"));
        Path file = dir.resolve("actors/u_ownerownerownerownerowners.laptop.json");
        Files.delete(file);
        Files.createDirectory(file); // reading a directory fails for root too
        CotalException e = assertThrows(CotalException.class, () -> ledger().authorizeConnect(attempt(row, "chat")));
        assertEquals(ErrorCode.PERMISSION_DENIED, e.code());
        assertEquals("actor u_ownerownerownerownerowners.laptop has an unreadable ledger row: the interactive ledger row of u_ownerownerownerownerowners.laptop"
                + " cannot be read (a file-system read error)", e.getMessage());
        Files.delete(file);
        Files.writeString(file, "{\"ver\":1,\"owner\":\"u_ownerownerownerownerowners\"");
        CotalException corrupt = assertThrows(CotalException.class, () -> ledger().authorizeConnect(attempt(row, "chat")));
        assertFalse(corrupt.getMessage().contains("/") || corrupt.getMessage().contains(".json"), corrupt.getMessage());
        assertTrue(corrupt.getMessage().contains("the interactive ledger row of u_ownerownerownerownerowners.laptop is corrupt"),
                corrupt.getMessage());
    }
}
