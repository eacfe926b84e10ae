package ai.cotal.workspace;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Root-relative state. Nothing here reads the working directory: callers pass the directory to
 * start from or the root itself.
 */
public final class CotalRoot {
    private CotalRoot() {
    }

    /** The nearest of {@code start} and its ancestors that holds a {@code .cotal} directory, else {@code start}. */
    public static Path findCotalRoot(Path start) {
        Path from = Objects.requireNonNull(start, "start").toAbsolutePath().normalize();
        for (Path dir = from; dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve(FileSecretStore.DIRECTORY), LinkOption.NOFOLLOW_LINKS)) {
                return dir;
            }
        }
        return from;
    }

    /** {@code <root>/.cotal/auth/space.<hex>}: where the actor ledger and the IdP pin of a space live. */
    public static Path userAuthStateDir(Path root, String space) {
        return Objects.requireNonNull(root, "root").resolve(FileSecretStore.DIRECTORY).resolve("auth")
                .resolve(SecretKeys.spaceSegment(space));
    }
}
