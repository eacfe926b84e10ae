package ai.cotal.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        assertEquals(first.serveIdentity(), again.serveIdentity());
        assertTrue(AuthInstanceIdentity.SERVE_IDENTITY.matcher(first.serveIdentity()).matches(), first.serveIdentity());
        assertEquals(first, AuthInstanceIdentity.loadOrCreate(store, "alpha", AuthInstanceIdentity::random),
                "an existing record wins over a new one");
        InMemorySecretStore other = new InMemorySecretStore();
        other.putText(SecretKeys.authInstanceKey("alpha"), "{\"version\":1,\"space\":\"beta\",\"instanceId\":\""
                + first.instanceId() + "\",\"serveIdentity\":\"" + first.serveIdentity() + "\"}");
        assertEquals(ErrorCode.DATA_LOSS, assertThrows(CotalException.class,
                () -> AuthInstanceIdentity.load(other, "alpha")).code(), "a record of another space");
        store.putText(SecretKeys.authInstanceKey("alpha"), "{\"version\":1,\"instanceId\":\"nothex\"}");
        CotalException e = assertThrows(CotalException.class, () -> AuthInstanceIdentity.loadOrCreate(store, "alpha"));
        assertEquals(ErrorCode.DATA_LOSS, e.code());
    }
}
