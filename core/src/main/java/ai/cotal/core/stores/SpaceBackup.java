package ai.cotal.core.stores;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.core.internal.kv.StoreNames;
import ai.cotal.core.id.SpaceName;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One space's streams backed up and restored in the {@code nats stream backup} layout (SPEC
 * §13.15 "Space backup", §7.5): one folder per stream, written by the same snapshot code as
 * {@link IssuedStores#recreate}, and {@code space.json} = {@code {version: 1, space, streams}}
 * written last. Backup needs the space's {@code backup} credential, restore its {@code restore}
 * credential: both are users of the space's own account, so a sibling space is out of reach.
 */
public final class SpaceBackup {
    /** The file that names the space and its streams; written last, so its presence marks a complete backup. */
    public static final String MANIFEST = "space.json";

    private SpaceBackup() {
    }

    /** What a backup holds: the space and, per stream, its message count and last sequence. */
    public record Backup(String space, Map<String, Counts> streams) {
        public Backup {
            streams = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(streams));
        }
    }

    /** A stream's recorded state at its snapshot. */
    public record Counts(long messages, long lastSeq) {
    }

    private record Manifest(Integer version, String space, List<String> streams) {
    }

    /**
     * Snapshots every stream of {@code space} that exists into {@code dir} (which must not exist;
     * created 0700).
     *
     * @throws CotalException {@code bad-request} naming {@code space}; {@code already-exists}
     *     naming {@code dir} when it exists (nothing written); {@code failed-precondition} when the
     *     space has no stream
     */
    public static Backup backup(Connection connection, String space, Path dir) {
        SpaceName.of(space, "space");
        if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            throw new CotalException(ErrorCode.ALREADY_EXISTS, "dir: " + dir + " exists; give a new directory");
        }
        JetStreamManagement jsm = SpaceStores.management(connection);
        List<String> present = new ArrayList<>();
        for (String stream : StoreNames.allStreams(space)) {
            if (SpaceStores.info(jsm, stream).isPresent()) {
                present.add(stream);
            }
        }
        if (present.isEmpty()) {
            throw CotalException.failedPrecondition("space '" + space + "' has no stream on this broker: nothing to back up");
        }
        try {
            Files.createDirectories(dir.toAbsolutePath().getParent());
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (IOException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "cannot create " + dir + " (" + e.getClass().getSimpleName() + ")", e);
        }
        Map<String, Counts> streams = new LinkedHashMap<>();
        for (String stream : present) {
            StreamBackup.Counts counts = StreamBackup.backup(connection, stream, dir.resolve(stream));
            streams.put(stream, new Counts(counts.messages(), counts.lastSeq()));
        }
        try {
            Files.write(dir.resolve(MANIFEST), ClosedJson.write(ClosedJson.cotal(), new Manifest(1, space, present)),
                    StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "cannot write " + dir.resolve(MANIFEST), e);
        }
        return new Backup(space, streams);
    }

    /**
     * Restores a backup of {@code space} made by {@link #backup}. Everything is checked before
     * anything is sent: the backup must be complete and of {@code space}, every stream it lists
     * must be one of the space's with its folder present, and none of them may exist on the broker.
     *
     * @return the streams restored, in order
     * @throws CotalException {@code failed-precondition} naming {@code space} for another space's
     *     backup; {@code data-loss} for an incomplete or unreadable backup; {@code already-exists}
     *     naming the streams that exist (nothing restored)
     */
    public static List<String> restore(Connection connection, String space, Path dir) {
        SpaceName.of(space, "space");
        Path manifestFile = dir.resolve(MANIFEST);
        Manifest manifest;
        try {
            manifest = ClosedJson.read(ClosedJson.cotal(), Files.readAllBytes(manifestFile), Manifest.class, MANIFEST);
        } catch (NoSuchFileException e) {
            throw new CotalException(ErrorCode.DATA_LOSS, "from: " + dir + " holds no " + MANIFEST
                    + " (not a space backup, or an incomplete one)");
        } catch (IOException e) {
            throw new CotalException(ErrorCode.DATA_LOSS, "from: " + manifestFile + " is unreadable", e);
        }
        if (manifest.version() == null || manifest.version() != 1 || manifest.space() == null || manifest.streams() == null
                || manifest.streams().isEmpty()) {
            throw new CotalException(ErrorCode.DATA_LOSS, "from: " + MANIFEST + " needs version 1, space and streams");
        }
        if (!manifest.space().equals(space)) {
            throw CotalException.failedPrecondition("space: the backup is of space '" + manifest.space() + "', not '"
                    + space + "'; nothing was restored");
        }
        List<String> own = StoreNames.allStreams(space);
        for (String stream : manifest.streams()) {
            if (!own.contains(stream)) {
                throw new CotalException(ErrorCode.DATA_LOSS, "from: " + stream + " is not a stream of space '" + space + "'");
            }
            if (!Files.isRegularFile(dir.resolve(stream).resolve(StreamBackup.META), LinkOption.NOFOLLOW_LINKS)) {
                throw new CotalException(ErrorCode.DATA_LOSS, "from: the folder of " + stream + " is missing or incomplete");
            }
        }
        JetStreamManagement jsm = SpaceStores.management(connection);
        List<String> existing = manifest.streams().stream().filter(s -> SpaceStores.info(jsm, s).isPresent()).toList();
        if (!existing.isEmpty()) {
            throw new CotalException(ErrorCode.ALREADY_EXISTS, "streams " + existing + " exist on this broker; a restore"
                    + " never overwrites: nothing was restored");
        }
        for (String stream : manifest.streams()) {
            StreamBackup.restore(connection, dir.resolve(stream));
        }
        return List.copyOf(manifest.streams());
    }
}
