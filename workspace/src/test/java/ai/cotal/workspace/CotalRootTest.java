package ai.cotal.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.secrets.InMemorySecretStore;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CotalRootTest {
    @TempDir
    Path dir;

    @Test
    void findsTheNearestRootAndFallsBackToStart() throws Exception {
        Files.createDirectories(dir.resolve("project/.cotal"));
        Path deep = Files.createDirectories(dir.resolve("project/a/b"));
        assertEquals(dir.resolve("project"), CotalRoot.findCotalRoot(deep));
        Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
        assertEquals(elsewhere, CotalRoot.findCotalRoot(elsewhere));
    }

    @Test
    void userAuthStateIsRootRelativeAndHexKeyed() {
        assertEquals(dir.resolve(".cotal/auth/space.616c706861"), CotalRoot.userAuthStateDir(dir, "alpha"));
        assertNotEquals(CotalRoot.userAuthStateDir(dir, "alpha"), CotalRoot.userAuthStateDir(dir, "Alpha"));
    }

    @Test
    void theAuthInstanceIdentityIsKeptAndNeverSilentlyReplaced() {
        InMemorySecretStore store = new InMemorySecretStore();
        AuthInstanceIdentity first = AuthInstanceIdentity.loadOrCreate(store, "alpha");
        AuthInstanceIdentity again = AuthInstanceIdentity.loadOrCreate(store, "alpha");
        assertEquals(first.instanceId(), again.instanceId());
        assertEquals(first.serveIdentity().id(), again.serveIdentity().id());
        store.putText(SecretKeys.authInstanceKey("alpha"), "{\"version\":1,\"instanceId\":\"nothex\"}");
        CotalException e = assertThrows(CotalException.class, () -> AuthInstanceIdentity.loadOrCreate(store, "alpha"));
        assertEquals(ErrorCode.DATA_LOSS, e.code());
    }
}
