package ai.cotal.core.stores;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.SpaceName;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import io.nats.client.api.StreamState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The issued and accepted stores' lifecycle: the bounded-retention check every issuer and
 * resolver applies when binding them, and their recreation from stores of the older shape.
 */
public final class IssuedStores {
    private IssuedStores() {
    }

    /**
     * Refuses unless both stores of {@code space} exist in their current shape: missing is
     * {@code failed-precondition}, pre-retention is {@link IssuedStoreRetentionRefusal}, other
     * drift is {@code failed-precondition}. Every issuer and resolver calls this when it binds.
     */
    public static void requireCurrentShape(Connection connection, String space) {
        JetStreamManagement jsm = SpaceStores.management(connection);
        List<StreamConfiguration> shapes = List.of(StoreSpecs.issued(space), StoreSpecs.accepted(space));
        ai.cotal.core.internal.kv.StreamInfos infos = ai.cotal.core.internal.kv.StreamInfos.send(connection,
                shapes.stream().map(StreamConfiguration::getName).toList(), connection.getOptions().getConnectionTimeout());
        for (StreamConfiguration expected : shapes) {
            StreamInfo info = SpaceStores.sent(infos, expected.getName()).orElseThrow(() -> CotalException
                    .failedPrecondition("store " + expected.getName() + " does not exist: run SpaceStores.setup first"));
            // The replica count is the setup's choice (SPEC §6); a verify-only reader accepts the live one.
            SpaceStores.verify(StoreSpecs.withReplicas(expected, info.getConfiguration().getReplicas()), info.getConfiguration());
        }
    }

    /** True when {@code live} is the pre-retention shape of the issued or accepted store {@code expected}. */
    static boolean predatesBoundedRetention(StreamConfiguration expected, StreamConfiguration live) {
        boolean issuedOrAccepted = expected.getName().startsWith("KV_cotal_issued_")
                || expected.getName().startsWith("KV_cotal_accepted_");
        return issuedOrAccepted && (live.getMaxAge() == null || live.getMaxAge().isZero());
    }

    /** What {@link #recreate} backed up and deleted: stream name → its backup directory. */
    public record Recreation(Map<String, Path> backups) {
        public Recreation {
            backups = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(backups));
        }
    }

    /**
     * Backs up, checks and deletes every issued or accepted store of {@code space} that predates
     * bounded retention, so that {@link SpaceStores#setup} creates them again in the current
     * shape. Needs the {@code issued-store-recreate} credential (it can read, snapshot and delete
     * exactly those two streams). {@code backupDir} must not exist: it is created 0700 with one
     * folder per stream in the {@code nats stream backup} layout. Nothing is deleted unless every
     * backup's recorded message count and last sequence equal the stream's at check time.
     *
     * @throws IssuedStoreRecreateRefusal before writing anything when neither store predates
     *     bounded retention or {@code backupDir} exists; after the backups (nothing deleted) when
     *     a check fails
     */
    public static Recreation recreate(Connection connection, String space, Path backupDir) {
        return recreate(connection, space, backupDir, () -> { });
    }

    /** {@link #recreate} with a step run between the backups and their checks (tests only). */
    static Recreation recreate(Connection connection, String space, Path backupDir, Runnable afterBackup) {
        SpaceName.of(space, "space");
        if (Files.exists(backupDir, LinkOption.NOFOLLOW_LINKS)) {
            throw new IssuedStoreRecreateRefusal("backupDir " + backupDir + " exists: give a new directory");
        }
        JetStreamManagement jsm = SpaceStores.management(connection);
        List<String> old = new ArrayList<>();
        for (StreamConfiguration expected : new StreamConfiguration[] {StoreSpecs.issued(space), StoreSpecs.accepted(space)}) {
            SpaceStores.info(jsm, expected.getName())
                    .filter(info -> predatesBoundedRetention(expected, info.getConfiguration()))
                    .ifPresent(info -> old.add(expected.getName()));
        }
        if (old.isEmpty()) {
            throw new IssuedStoreRecreateRefusal("neither KV_cotal_issued_" + SpaceName.token(space)
                    + " nor KV_cotal_accepted_" + SpaceName.token(space)
                    + " predates bounded retention: nothing to recreate");
        }
        try {
            Files.createDirectories(backupDir.toAbsolutePath().getParent());
            Files.createDirectory(backupDir, PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwx------")));
        } catch (IOException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "cannot create " + backupDir, e);
        }
        Map<String, Path> backups = new LinkedHashMap<>();
        for (String stream : old) {
            Path dir = backupDir.resolve(stream);
            StreamBackup.backup(connection, stream, dir);
            backups.put(stream, dir);
        }
        afterBackup.run();
        for (Map.Entry<String, Path> backup : backups.entrySet()) {
            StreamBackup.Counts recorded = StreamBackup.counts(backup.getValue());
            StreamState now = SpaceStores.info(jsm, backup.getKey()).orElseThrow(() ->
                    new IssuedStoreRecreateRefusal(backup.getKey() + " vanished during the backup; nothing deleted"))
                    .getStreamState();
            if (now.getMsgCount() != recorded.messages() || now.getLastSequence() != recorded.lastSeq()) {
                throw new IssuedStoreRecreateRefusal("the backup of " + backup.getKey() + " holds " + recorded.messages()
                        + " messages up to sequence " + recorded.lastSeq() + " but the stream now has " + now.getMsgCount()
                        + " up to " + now.getLastSequence() + ": nothing deleted; stop every writer and run again with a"
                        + " new backupDir");
            }
        }
        for (String stream : backups.keySet()) {
            try {
                jsm.deleteStream(stream);
            } catch (JetStreamApiException e) {
                throw SpaceStores.apiFailure("delete " + stream, e);
            } catch (IOException e) {
                throw SpaceStores.unavailable("delete " + stream, e);
            }
        }
        return new Recreation(backups);
    }

    /**
     * Puts a backup made by {@link #recreate} (one stream's folder) back: the stream must not
     * exist. Needs the {@code issued-store-restore} credential.
     */
    public static void restore(Connection connection, Path streamBackupDir) {
        StreamBackup.restore(connection, streamBackupDir);
    }
}
