package ai.cotal.workspace;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.secrets.SecretKey;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.core.secrets.SecretStoreIdentity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * The default {@link SecretStore}: one file per key under {@code <root>/.cotal}. Keys follow
 * {@link SecretKey} (relative, no {@code .}/{@code ..}, no NUL, nothing that leaves the root), and
 * no path component under {@code .cotal} may be a symbolic link; every directory from
 * {@code .cotal} down must be this user's ({@link PrivateFiles#requirePrivateDirectory}: one open
 * to group or others is narrowed to 0700). {@code put} writes a 0600 temp
 * file in a 0700 directory, fsyncs it and renames it over the key, so a reader (thread or
 * process) sees the old or the new value, never a torn one. {@code get} is empty only when the
 * key is absent. Thread-safe; identity {@code {kind: fs, root}}.
 */
public final class FileSecretStore implements SecretStore {
    /** The store's directory under the root. */
    public static final String DIRECTORY = ".cotal";

    private final Path root;
    private final Path top;

    /** A store rooted at {@code root} (its files live in {@code root/.cotal}). */
    public FileSecretStore(Path root) {
        this.root = Objects.requireNonNull(root, "root").toAbsolutePath().normalize();
        this.top = this.root.resolve(DIRECTORY);
    }

    @Override
    public Optional<byte[]> get(String key) {
        return PrivateFiles.readNoFollow(resolve(key));
    }

    @Override
    public void put(String key, byte[] value) {
        PrivateFiles.write(writable(key, value), value);
    }

    @Override
    public boolean create(String key, byte[] value) {
        return PrivateFiles.create(writable(key, value), value);
    }

    /** The key's file, its directories made private, refusing a symbolic link in its place. */
    private Path writable(String key, byte[] value) {
        Objects.requireNonNull(value, "value");
        Path file = resolve(key);
        PrivateFiles.ensureDirectory(root, file.getParent());
        if (Files.isSymbolicLink(file)) {
            throw symlink(key);
        }
        return file;
    }

    @Override
    public void delete(String key) {
        Path file = resolve(key);
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "cannot delete secret " + key + " (" + e.getClass().getSimpleName() + ")", e);
        }
    }

    @Override
    public Optional<SecretStoreIdentity> identity() {
        return Optional.of(SecretStoreIdentity.fs(root.toString()));
    }

    /** The key's file, refusing bad keys and symbolic links on the way (the last component is checked by the caller). */
    private Path resolve(String key) {
        SecretKey.check(key);
        Path file = top.resolve(key).normalize();
        if (!file.startsWith(top) || file.equals(top)) {
            throw CotalException.badRequest("key", "leaves the store's root");
        }
        boolean present = true;
        for (Path dir = top; !dir.equals(file); dir = dir.resolve(file.getName(dir.getNameCount()))) {
            if (Files.isSymbolicLink(dir)) {
                throw symlink(key);
            }
            // this user's, 0700 (narrowed when open to others), never another user's (SPEC §7.1)
            present = present && PrivateFiles.requirePrivateDirectory(dir, "'" + dir.getFileName() + "' directory");
        }
        return file;
    }

    private static CotalException symlink(String key) {
        return new CotalException(ErrorCode.PERMISSION_DENIED, "secret " + key + ": a symbolic link in its path is refused");
    }

    @Override
    public String toString() {
        return "FileSecretStore[" + top + "]";
    }
}
