package ai.cotal.workspace;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Private files: directories 0700, files 0600, written so that a reader sees the old or the new
 * content, never a mix (a temp file in the same directory, written and fsynced, renamed over the
 * target, then the directory fsynced), and read without following symbolic links. Directories on
 * the way are checked with {@link #requirePrivateDirectory}. Messages name paths (or, for the
 * directory checks, the directory's role), never contents. Stateless and thread-safe.
 */
public final class PrivateFiles {
    private static final Set<PosixFilePermission> DIR = PosixFilePermissions.fromString("rwx------");
    private static final FileAttribute<Set<PosixFilePermission>> FILE =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Logger LOG = LoggerFactory.getLogger(PrivateFiles.class);

    private PrivateFiles() {
    }

    /**
     * Creates {@code dir} and every missing directory above it, up to the first one that exists,
     * with mode 0700. Below {@code top} a symbolic link is refused and every directory, new or
     * existing, must pass {@link #requirePrivateDirectory} (an existing one of this user with
     * group or other access is narrowed to 0700; one of another user is refused). (Every
     * directory this creates is private, {@code top}'s missing ancestors too.)
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
                requirePrivateDirectory(current, "directory '" + current.getFileName() + "'");
            }
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(dir)) {
                throw new CotalException(ErrorCode.FAILED_PRECONDITION, dir + ": not a directory");
            }
        } catch (IOException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, dir + ": cannot create the directory (" + e.getClass().getSimpleName() + ")", e);
        }
    }

    /**
     * Checks one directory on a path private state is read from or written to (SPEC §7.1): it must
     * be a real directory (not a symbolic link: {@code permission-denied}; not a directory:
     * {@code failed-precondition}) owned by this process's user (else {@code failed-precondition}:
     * another local user could plant files in it), and it must give no access to group or others:
     * one of this user that does is narrowed to 0700 and the change logged (a warning, once per
     * change). Messages name {@code role} (e.g. "actors directory"), never the path. Returns false
     * when the directory does not exist. On a file system without POSIX attributes only the link
     * and directory checks apply.
     */
    public static boolean requirePrivateDirectory(Path dir, String role) {
        java.util.Map<String, Object> unix;
        try { // one stat for the link, the type, the owner and the mode
            unix = Files.readAttributes(dir, "unix:isSymbolicLink,isDirectory,uid,permissions", LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return false;
        } catch (UnsupportedOperationException | IllegalArgumentException e) { // no unix view: POSIX attributes, if any
            return requirePosixDirectory(dir, role);
        } catch (IOException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, role + ": cannot be inspected (a file-system read error)", e);
        }
        @SuppressWarnings("unchecked")
        Set<PosixFilePermission> mode = (Set<PosixFilePermission>) unix.get("permissions");
        return requirePrivate(dir, role, Boolean.TRUE.equals(unix.get("isSymbolicLink")),
                Boolean.TRUE.equals(unix.get("isDirectory")),
                () -> unix.get("uid") instanceof Integer id && id.longValue() == ThisUser.UID, mode);
    }

    private static boolean requirePosixDirectory(Path dir, String role) {
        PosixFileAttributes attributes;
        try {
            attributes = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return false;
        } catch (UnsupportedOperationException e) {
            if (Files.isSymbolicLink(dir)) {
                throw new CotalException(ErrorCode.PERMISSION_DENIED, role + ": a symbolic link is refused");
            }
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                throw notADirectory(role);
            }
            return true;
        } catch (IOException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, role + ": cannot be inspected (a file-system read error)", e);
        }
        return requirePrivate(dir, role, attributes.isSymbolicLink(), attributes.isDirectory(),
                () -> ownedByThisUser(dir, role), attributes.permissions());
    }

    /** The checks on a directory's attributes, in order: not a link, a directory, this user's, narrowed to 0700. */
    private static boolean requirePrivate(Path dir, String role, boolean link, boolean directory,
            java.util.function.BooleanSupplier ownedByThisUser, Set<PosixFilePermission> mode) {
        if (link) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, role + ": a symbolic link is refused");
        }
        if (!directory) {
            throw notADirectory(role);
        }
        if (!ownedByThisUser.getAsBoolean()) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, role + ": owned by another user; refused (it must"
                    + " belong to the user running the service, mode 0700)");
        }
        if (!DIR.containsAll(mode)) {
            try {
                Files.setPosixFilePermissions(dir, DIR);
            } catch (IOException e) {
                throw new CotalException(ErrorCode.FAILED_PRECONDITION, role + ": gives group or others access and"
                        + " cannot be narrowed to 0700", e);
            }
            LOG.warn("private state: the {} ({}) was mode {}; narrowed to rwx------", role, dir,
                    PosixFilePermissions.toString(mode));
        }
        return true;
    }

    /**
     * Checks a state directory and its ancestors up to the nearest one named {@code .cotal} (the
     * standard layout {@code <root>/.cotal/auth/space.<hex>}; nothing above {@code .cotal}, and
     * only the directory itself when no ancestor is named so) with {@link #requirePrivateDirectory}.
     * Roles: "state directory" for {@code stateDir}, "'&lt;name&gt;' directory" for an ancestor. False
     * when one of them does not exist.
     */
    public static boolean requirePrivateStateDirectory(Path stateDir) {
        Path dir = stateDir.toAbsolutePath().normalize();
        java.util.ArrayDeque<Path> chain = new java.util.ArrayDeque<>(java.util.List.of(dir));
        for (Path p = dir.getParent(); p != null; p = p.getParent()) {
            if (p.getFileName() != null && p.getFileName().toString().equals(FileSecretStore.DIRECTORY)) {
                for (Path q = dir.getParent(); !q.equals(p.getParent()); q = q.getParent()) {
                    chain.push(q);
                }
                break;
            }
        }
        for (Path p : chain) {
            if (!requirePrivateDirectory(p, p.equals(dir) ? "state directory" : "'" + p.getFileName() + "' directory")) {
                return false;
            }
        }
        return true;
    }

    private static CotalException notADirectory(String role) {
        return new CotalException(ErrorCode.FAILED_PRECONDITION, role + ": not a directory");
    }

    private static boolean ownedByThisUser(Path dir, String role) {
        try {
            Object uid = Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            return uid instanceof Integer id && id.longValue() == ThisUser.UID;
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            return true; // no numeric owners on this file system: nothing to compare
        } catch (IOException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, role + ": its owner cannot be read (a file-system read error)", e);
        }
    }

    /** This process's user id, read once. */
    private static final class ThisUser {
        static final long UID = new com.sun.security.auth.module.UnixSystem().getUid();
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
