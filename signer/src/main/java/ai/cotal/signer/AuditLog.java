package ai.cotal.signer;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.workspace.PrivateFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The signer's audit log (SPEC §16.3): JSON lines appended to a 0600 file by one writer thread,
 * {@code fsync}ed in groups; {@link #record} returns only once its line is on disk. Once the file
 * holds {@code maxBytes} it is rotated: {@code audit.jsonl.1} ... {@code .<keep>} are the older
 * files, newest first, the oldest is dropped, so the log never holds more than about
 * {@code (keep + 1) * maxBytes}. Holds no secret. Thread-safe; {@link #close()} writes the stop
 * record and waits for the writer.
 */
final class AuditLog implements AutoCloseable {
    private static final int BATCH = 256;
    private static final long WAIT_SECONDS = 10;

    /** One line; absent fields are left out. */
    record Entry(String ts, Long seq, String event, String code, String reason, String profile, String sub, String name,
            Long iat, Long exp, String jti, String input, String peer, String space, String account, String signingKey,
            String policy, Long folded) {
        static Entry event(String event) {
            return new Entry(null, null, event, null, null, null, null, null, null, null, null, null, null, null, null,
                    null, null, null);
        }
    }

    private record Pending(Entry entry, CompletableFuture<Void> written) {
    }

    private static final Pending STOP = new Pending(null, null);

    private final Path path;
    private final long maxBytes;
    private final int keep;
    private FileChannel file; // the writer thread's once started
    private long size;
    private final Clock clock;
    private final BlockingQueue<Pending> queue = new LinkedBlockingQueue<>(4_096);
    private final Thread writer;
    private long seq;

    private AuditLog(Path path, FileChannel file, Clock clock, long maxBytes, int keep) throws IOException {
        this.path = path;
        this.file = file;
        this.size = file.size();
        this.maxBytes = maxBytes;
        this.keep = keep;
        String name = path.getFileName().toString();
        this.clock = clock;
        this.writer = new Thread(this::drain, "cotal-signer-audit-" + name);
        this.writer.setDaemon(true);
        this.writer.start();
    }

    /**
     * Opens {@code path} for append, creating it 0600. Its directory must be private (SPEC §7:
     * this user's, no group or other access); an existing file must be a regular file of the
     * directory's owner with no group or other access, else {@code failed-precondition}. The file
     * is rotated at {@code maxBytes}, {@code keep} older files retained.
     */
    static AuditLog open(Path path, Clock clock, long maxBytes, int keep) {
        Path file = path.toAbsolutePath().normalize();
        Path dir = file.getParent();
        if (!PrivateFiles.requirePrivateDirectory(dir, "audit log directory")) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "audit: its directory does not exist");
        }
        try {
            if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                PosixFileAttributes attributes = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                Object owner = Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS);
                Object dirOwner = Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS);
                if (!attributes.isRegularFile() || !owner.equals(dirOwner)
                        || !EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE)
                                .containsAll(attributes.permissions())) {
                    throw new CotalException(ErrorCode.FAILED_PRECONDITION, "audit: the existing log is not a private file"
                            + " (a regular file of this user, mode 0600)");
                }
            }
            return new AuditLog(file, append(file), clock, maxBytes, keep);
        } catch (IOException e) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "audit: the log cannot be opened for append ("
                    + e.getClass().getSimpleName() + ")", e);
        }
    }

    private static FileChannel append(Path file) throws IOException {
        return FileChannel.open(file, java.util.Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND, LinkOption.NOFOLLOW_LINKS),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    }

    /** The {@code n}th older file ({@code audit.jsonl.<n>}). */
    static Path rotated(Path path, int n) {
        return path.resolveSibling(path.getFileName() + "." + n);
    }

    /**
     * Closes the full file and shifts it to {@code .1} (the older ones one further, the oldest
     * dropped), then opens a new one. A rename is atomic: a crash in between leaves every record
     * in one of the files.
     */
    private void rotate() throws IOException {
        file.close();
        Files.deleteIfExists(rotated(path, keep));
        for (int n = keep - 1; n >= 1; n--) {
            if (Files.exists(rotated(path, n), LinkOption.NOFOLLOW_LINKS)) {
                Files.move(rotated(path, n), rotated(path, n + 1), StandardCopyOption.ATOMIC_MOVE);
            }
        }
        Files.move(path, rotated(path, 1), StandardCopyOption.ATOMIC_MOVE);
        file = append(path);
        size = 0;
    }

    /**
     * Appends {@code entry} (its {@code ts} and {@code seq} are set here) and returns once it is
     * on disk; {@code unavailable} when it cannot be written.
     */
    void record(Entry entry) {
        CompletableFuture<Void> written = new CompletableFuture<>();
        try {
            if (!queue.offer(new Pending(entry, written), WAIT_SECONDS, TimeUnit.SECONDS)) {
                throw unwritable(null);
            }
            written.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unwritable(e);
        } catch (ExecutionException | TimeoutException e) {
            throw unwritable(e);
        }
    }

    private static CotalException unwritable(Exception cause) {
        return new CotalException(ErrorCode.UNAVAILABLE, "the audit log cannot be written; nothing was signed", cause);
    }

    private void drain() {
        List<Pending> batch = new ArrayList<>();
        while (true) {
            try {
                batch.add(queue.take());
            } catch (InterruptedException e) {
                return;
            }
            queue.drainTo(batch, BATCH - 1);
            boolean stop = batch.remove(STOP);
            write(batch);
            batch.clear();
            if (stop) {
                return;
            }
        }
    }

    private void write(List<Pending> batch) {
        if (batch.isEmpty()) {
            return;
        }
        try {
            String ts = clock.instant().toString();
            java.io.ByteArrayOutputStream lines = new java.io.ByteArrayOutputStream();
            for (Pending p : batch) {
                Entry e = p.entry();
                lines.write(ClosedJson.write(ClosedJson.cotal(), new Entry(ts, ++seq, e.event(), e.code(), e.reason(),
                        e.profile(), e.sub(), e.name(), e.iat(), e.exp(), e.jti(), e.input(), e.peer(), e.space(),
                        e.account(), e.signingKey(), e.policy(), e.folded())));
                lines.write('\n');
            }
            ByteBuffer buffer = ByteBuffer.wrap(lines.toByteArray());
            while (buffer.hasRemaining()) {
                file.write(buffer);
            }
            file.force(false);
            size += lines.size();
            batch.forEach(p -> p.written().complete(null));
            if (size >= maxBytes) {
                rotate();
            }
        } catch (IOException | RuntimeException e) {
            batch.forEach(p -> p.written().completeExceptionally(e)); // (none once completed: a failed rotation fails the next)
        }
    }

    /** Writes the stop record, waits for the writer, closes the file. */
    @Override
    public void close() {
        try {
            record(Entry.event("stopped"));
        } catch (CotalException e) {
            // the log is already failing: nothing more can be recorded
        }
        try {
            queue.put(STOP);
            writer.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            file.close();
        } catch (IOException e) {
            // closing an append-only log that was forced after each batch loses nothing
        }
    }
}
