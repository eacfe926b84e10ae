package ai.cotal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.internal.plane.FileActorLedger;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * The refusals of {@code grantActor} and {@code IdpPin.pin} name the row, the pin or the
 * directory's role, never the state's path: not in their message, not in any cause's (SPEC §13.14).
 */
class StateFileRefusalTest {
    @TempDir
    Path root;

    private static final Grant GRANT = Grant.of(List.of("chat"), List.of(), List.of());

    /** The refusal {@code call} throws, after checking that nothing along it names {@code root}. */
    private CotalException refused(Executable call) {
        CotalException e = assertThrows(CotalException.class, call);
        for (Throwable t = e; t != null; t = t.getCause()) {
            String message = String.valueOf(t.getMessage());
            assertFalse(message.contains(root.toString()) || message.contains("/"), "a path in: " + message);
        }
        return e;
    }

    private ActorLedger ledger(Path stateDir) {
        return new FileActorLedger(stateDir, Clock.systemUTC());
    }

    @Test
    void grantActorNamesTheRowNeverItsPath() throws Exception {
        Path state = Files.createDirectory(root.resolve("state"));
        Path elsewhere = Files.createDirectory(root.resolve("elsewhere"));
        Files.createSymbolicLink(state.resolve("actors"), elsewhere);
        CotalException link = refused(() -> ledger(state).grantActor(Principal.of("u_abcdefghijklmnopqrstuvwxyz", "laptop"), GRANT));
        assertEquals(ErrorCode.FAILED_PRECONDITION, link.code());
        assertEquals("the directories of the interactive ledger row of u_abcdefghijklmnopqrstuvwxyz.laptop cannot be made ready: a symbolic"
                + " link or a file where a private directory belongs", link.getMessage());

        Files.delete(state.resolve("actors"));
        Files.writeString(state.resolve("actors"), "a file where the directory belongs");
        refused(() -> ledger(state).grantActor(Principal.of("u_abcdefghijklmnopqrstuvwxyz", "laptop"), GRANT));

        Files.delete(state.resolve("actors"));
        Files.createDirectories(state.resolve("managed-actors/u_abcdefghijklmnopqrstuvwxyz.agent1.json/occupied")); // root cannot replace it either
        CotalException write = refused(() -> ledger(state).grantManagedActor(Principal.of("u_abcdefghijklmnopqrstuvwxyz", "agent1"), GRANT, "ab".repeat(32),
                new LifecycleUid("abcdefghijklmnopqrstuvwxyz")));
        assertEquals(ErrorCode.UNAVAILABLE, write.code());
        assertTrue(write.getMessage().startsWith("the managed ledger row of u_abcdefghijklmnopqrstuvwxyz.agent1 cannot be written: a file-system"
                + " error"), write.getMessage());

        Path file = Files.writeString(root.resolve("plain-file"), "not a directory");
        refused(() -> ledger(file).grantActor(Principal.of("u_abcdefghijklmnopqrstuvwxyz", "laptop"), GRANT));
        refused(() -> ledger(file.resolve("below")).grantActor(Principal.of("u_abcdefghijklmnopqrstuvwxyz", "laptop"), GRANT));
    }

    @Test
    void pinningNamesThePinNeverItsPath() throws Exception {
        Path state = Files.createDirectory(root.resolve("state"));
        Files.createSymbolicLink(state.resolve(IdpPin.FILE), Files.writeString(root.resolve("planted.json"), "{}"));
        CotalException link = refused(() -> IdpPin.pin(state, "https://idp.example"));
        assertEquals(ErrorCode.PERMISSION_DENIED, link.code());
        assertEquals("idp.json cannot be read: a symbolic link is refused", link.getMessage());

        Files.delete(state.resolve(IdpPin.FILE));
        Files.createDirectory(state.resolve(IdpPin.FILE)); // reading a directory fails for root too
        CotalException unreadable = refused(() -> IdpPin.pin(state, "https://idp.example"));
        assertEquals(ErrorCode.UNAVAILABLE, unreadable.code());
        assertTrue(unreadable.getMessage().startsWith("idp.json cannot be read: a file-system error"),
                unreadable.getMessage());

        Path file = Files.writeString(root.resolve("plain-file"), "not a directory");
        refused(() -> IdpPin.pin(file, "https://idp.example"));
        refused(() -> IdpPin.pin(file.resolve("below"), "https://idp.example"));
    }
}
