package ai.cotal.auth.signer;

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
 * {@code fsync}ed in groups; {@link #record} returns only once its line is on disk. Holds no
 * secret. Thread-safe; {@link #close()} writes the stop record and waits for the writer.
 */
final class AuditLog implements AutoCloseable {
    private static final int BATCH = 256;
    private static final long WAIT_SECONDS = 10;

    /** One line; absent fields are left out. */
    record Entry(String ts, Long seq, String event, String code, String reason, String profile, String sub, String name,
            Long iat, Long exp, String jti, String input, String peer, String space, String account, String signingKey,
            String policy) {
        static Entry event(String event) {
            return new Entry(null, null, event, null, null, null, null, null, null, null, null, null, null, null, null,
                    null, null);
        }
    }

    private record Pending(Entry entry, CompletableFuture<Void> written) {
    }

    private static final Pending STOP = new Pending(null, null);

    private final FileChannel file;
    private final Clock clock;
    private final BlockingQueue<Pending> queue = new LinkedBlockingQueue<>(4_096);
    private final Thread writer;
    private long seq;

    private AuditLog(FileChannel file, Clock clock, String name) {
        this.file = file;
        this.clock = clock;
        this.writer = new Thread(this::drain, "cotal-signer-audit-" + name);
        this.writer.setDaemon(true);
        this.writer.start();
    }

    /**
     * Opens {@code path} for append, creating it 0600. Its directory must be private (SPEC §7:
     * this user's, no group or other access); an existing file must be a regular file of the
     * directory's owner with no group or other access, else {@code failed-precondition}.
     */
    static AuditLog open(Path path, Clock clock) {
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
            FileChannel channel = FileChannel.open(file, java.util.Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.APPEND, LinkOption.NOFOLLOW_LINKS),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            return new AuditLog(channel, clock, file.getFileName().toString());
        } catch (IOException e) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "audit: the log cannot be opened for append ("
                    + e.getClass().getSimpleName() + ")", e);
        }
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
                        e.account(), e.signingKey(), e.policy())));
                lines.write('\n');
            }
            ByteBuffer buffer = ByteBuffer.wrap(lines.toByteArray());
            while (buffer.hasRemaining()) {
                file.write(buffer);
            }
            file.force(false);
            batch.forEach(p -> p.written().complete(null));
        } catch (IOException | RuntimeException e) {
            batch.forEach(p -> p.written().completeExceptionally(e));
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
