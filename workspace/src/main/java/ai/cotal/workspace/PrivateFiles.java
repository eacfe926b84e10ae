package ai.cotal.workspace;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Set;

/**
 * Private files: directories 0700, files 0600, written so that a reader sees the old or the new
 * content, never a mix (a temp file in the same directory, written and fsynced, renamed over the
 * target, then the directory fsynced), and read without following symbolic links. Messages name
 * paths, never contents. Stateless and thread-safe.
 */
public final class PrivateFiles {
    private static final Set<PosixFilePermission> DIR = PosixFilePermissions.fromString("rwx------");
    private static final FileAttribute<Set<PosixFilePermission>> FILE =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
    private static final SecureRandom RANDOM = new SecureRandom();

    private PrivateFiles() {
    }

    /**
     * Creates {@code dir} and every missing directory above it, up to the first one that exists,
     * with mode 0700; existing ones are left as they are. Below {@code top} a symbolic link is
     * refused. (Every directory this creates is private, {@code top}'s missing ancestors too.)
     */
    public static void ensureDirectory(Path top, Path dir) {
        try {
            java.util.ArrayDeque<Path> missing = new java.util.ArrayDeque<>();
            for (Path p = top.toAbsolutePath().normalize(); p != null && !Files.exists(p, LinkOption.NOFOLLOW_LINKS);
                    p = p.getParent()) {
                missing.push(p);
            }
            for (Path p : missing) {
                createPrivate(p);
            }
            Path relative = top.relativize(dir);
            Path current = top;
            for (Path part : relative) {
                current = current.resolve(part);
                if (Files.isSymbolicLink(current)) {
                    throw new CotalException(ErrorCode.FAILED_PRECONDITION, current + ": a symbolic link where a"
                            + " private directory belongs");
                }
                createPrivate(current);
            }
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(dir)) {
                throw new CotalException(ErrorCode.FAILED_PRECONDITION, dir + ": not a directory");
            }
        } catch (IOException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, dir + ": cannot create the directory (" + e.getClass().getSimpleName() + ")", e);
        }
    }

    private static void createPrivate(Path dir) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            try {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(DIR));
                Files.setPosixFilePermissions(dir, DIR); // umask may have narrowed the create mode
            } catch (FileAlreadyExistsException raced) {
                // Another writer created it first: fine, it is checked below.
            }
        }
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, dir + ": not a directory");
        }
    }

    /** Replaces {@code file} with {@code data} atomically, mode 0600. The parent directory must exist. */
    public static void write(Path file, byte[] data) {
        land(file, data, false);
    }

    /**
     * Creates {@code file} with {@code data}, mode 0600, only when no file is there: the content is
     * written to a temp file first and then linked into place, so the file appears whole or not at
     * all, and of two racing creators exactly one wins. Answers whether this call created it (an
     * existing file is left exactly as it is). The parent directory must exist.
     */
    public static boolean create(Path file, byte[] data) {
        return land(file, data, true);
    }

    private static boolean land(Path file, byte[] data, boolean createOnly) {
        Path dir = file.getParent();
        Path temp = dir.resolve("." + file.getFileName() + "." + HexFormat.of().formatHex(nonce()) + ".tmp");
        try {
            try (FileChannel channel = FileChannel.open(Files.createFile(temp, FILE), StandardOpenOption.WRITE)) {
                ByteBuffer buffer = ByteBuffer.wrap(data);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                channel.force(true);
            }
            boolean landed = true;
            if (createOnly) {
                try {
                    Files.createLink(file, temp); // fails when the target exists: the first creator wins
                } catch (FileAlreadyExistsException taken) {
                    landed = false;
                }
                Files.delete(temp);
            } else {
                Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            }
            try (FileChannel directory = FileChannel.open(dir, StandardOpenOption.READ)) {
                directory.force(true);
            }
            return landed;
        } catch (IOException e) {
            try {
                Files.deleteIfExists(temp);
            } catch (IOException ignored) {
                // The write already failed; the temp name is unique and harmless.
            }
            throw new CotalException(ErrorCode.UNAVAILABLE, file + ": cannot write (" + e.getClass().getSimpleName() + ")", e);
        }
    }

    /** The file's bytes, or empty when it does not exist; a symbolic link is refused ({@code permission-denied}). */
    public static java.util.Optional<byte[]> readNoFollow(Path file) {
        try (java.nio.channels.SeekableByteChannel channel = Files.newByteChannel(file, StandardOpenOption.READ,
                LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(channel.size(), Integer.MAX_VALUE - 8));
            while (buffer.hasRemaining() && channel.read(buffer) >= 0) {
                // read it all
            }
            return java.util.Optional.of(buffer.array());
        } catch (java.nio.file.NoSuchFileException e) {
            return java.util.Optional.empty();
        } catch (IOException e) {
            if (Files.isSymbolicLink(file)) {
                throw new CotalException(ErrorCode.PERMISSION_DENIED, file + ": a symbolic link is refused");
            }
            throw new CotalException(ErrorCode.UNAVAILABLE, file + ": cannot read (" + e.getClass().getSimpleName() + ")", e);
        }
    }

    private static byte[] nonce() {
        byte[] bytes = new byte[8];
        RANDOM.nextBytes(bytes);
        return bytes;
    }
}
