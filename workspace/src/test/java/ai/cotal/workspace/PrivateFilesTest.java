package ai.cotal.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue #16.7: a directory private state lives in is this user's, 0700, and never a link. */
class PrivateFilesTest {
    static final boolean ROOT = new com.sun.security.auth.module.UnixSystem().getUid() == 0;

    @TempDir
    Path dir;

    static String mode(Path path) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
    }

    /**
     * A directory this process's user does not own: as root, one handed to "nobody"; as anyone else,
     * a system directory root owns.
     */
    static Path foreignDirectory(Path under) throws Exception {
        if (!ROOT) {
            return Path.of("/usr");
        }
        Path foreign = Files.createDirectories(under.resolve("foreign"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        Files.setAttribute(foreign, "unix:uid", 65534, LinkOption.NOFOLLOW_LINKS);
        return foreign;
    }

    @Test
    void aGroupOrWorldOpenDirectoryOfThisUserIsNarrowedTo0700() throws Exception {
        Path open = Files.createDirectory(dir.resolve("actors"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertTrue(PrivateFiles.requirePrivateDirectory(open, "actors directory"));
        assertEquals("rwx------", mode(open));
        assertFalse(PrivateFiles.requirePrivateDirectory(dir.resolve("absent"), "actors directory"), "absent is not an error");
    }

    @Test
    void aSymbolicLinkAFileOrAnotherUsersDirectoryIsRefusedByItsRoleNotItsPath() throws Exception {
        Path real = Files.createDirectory(dir.resolve("real"));
        Path link = Files.createSymbolicLink(dir.resolve("actors"), real);
        CotalException symlink = assertThrows(CotalException.class,
                () -> PrivateFiles.requirePrivateDirectory(link, "actors directory"));
        assertEquals(ErrorCode.PERMISSION_DENIED, symlink.code());
        assertEquals("actors directory: a symbolic link is refused", symlink.getMessage());

        Path file = Files.writeString(dir.resolve("plain"), "x");
        assertEquals(ErrorCode.FAILED_PRECONDITION, assertThrows(CotalException.class,
                () -> PrivateFiles.requirePrivateDirectory(file, "state directory")).code());

        Path foreign = foreignDirectory(dir);
        String before = mode(foreign);
        CotalException other = assertThrows(CotalException.class,
                () -> PrivateFiles.requirePrivateDirectory(foreign, "managed-actors directory"));
        assertEquals(ErrorCode.FAILED_PRECONDITION, other.code());
        assertTrue(other.getMessage().startsWith("managed-actors directory: owned by another user"), other.getMessage());
        assertFalse(other.getMessage().contains("/"), other.getMessage());
        assertEquals(before, mode(foreign), "another user's directory is never changed");
    }

    @Test
    void ensureDirectoryNarrowsExistingOpenDirectoriesBelowTheTop() throws Exception {
        Path cotal = Files.createDirectories(dir.resolve(".cotal/auth"));
        Files.setPosixFilePermissions(cotal.getParent(), PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setPosixFilePermissions(cotal, PosixFilePermissions.fromString("rwxr-xr-x"));
        PrivateFiles.ensureDirectory(dir, cotal.resolve("space.61"));
        assertEquals("rwx------", mode(cotal.getParent()));
        assertEquals("rwx------", mode(cotal));
        assertEquals("rwx------", mode(cotal.resolve("space.61")));
    }

    @Test
    void theSecretStoreRefusesADirectoryOfAnotherUserAndNarrowsItsOwnOpenOnes() throws Exception {
        FileSecretStore store = new FileSecretStore(dir);
        store.putText("space.61/issuer.json", "{}");
        Files.setPosixFilePermissions(dir.resolve(".cotal"), PosixFilePermissions.fromString("rwxrwxrwx"));
        assertEquals("{}", store.getText("space.61/issuer.json").orElseThrow());
        assertEquals("rwx------", mode(dir.resolve(".cotal")), "a read narrows it");
        if (ROOT) { // only root can hand a directory to another user; the refusal is covered for every user above
            Files.setAttribute(dir.resolve(".cotal/space.61"), "unix:uid", 65534, LinkOption.NOFOLLOW_LINKS);
            CotalException planted = assertThrows(CotalException.class, () -> store.getText("space.61/issuer.json"));
            assertEquals(ErrorCode.FAILED_PRECONDITION, planted.code());
            assertTrue(planted.getMessage().startsWith("'space.61' directory: owned by another user"), planted.getMessage());
        }
    }

    @Test
    void aStateDirectoryIsCheckedUpToTheNearestDotCotalAndNoFurther() throws Exception {
        Path state = CotalRoot.userAuthStateDir(dir.resolve("root"), "alpha");
        assertFalse(PrivateFiles.requirePrivateStateDirectory(state), "absent");
        Files.createDirectories(state);
        for (Path p = state; !p.equals(dir); p = p.getParent()) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxrwxrwx"));
        }
        assertTrue(PrivateFiles.requirePrivateStateDirectory(state));
        assertEquals("rwx------", mode(state));
        assertEquals("rwx------", mode(state.getParent()));
        assertEquals("rwx------", mode(dir.resolve("root/.cotal")));
        assertEquals("rwxrwxrwx", mode(dir.resolve("root")), "above .cotal is not the SDK's");
        Files.delete(state);
        Files.createSymbolicLink(state, Files.createDirectory(dir.resolve("elsewhere")));
        CotalException link = assertThrows(CotalException.class, () -> PrivateFiles.requirePrivateStateDirectory(state));
        assertEquals("state directory: a symbolic link is refused", link.getMessage());
    }
}
