package ai.cotal.auth.internal.ledger;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.connect.ConnectedWait;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.StreamInfo;
import io.nats.client.api.StreamInfoOptions;
import io.nats.client.api.Subject;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The keys under a prefix of one KV bucket, from its stream leader's subject index
 * ({@code STREAM.INFO} with a subject filter, SPEC §13.23): an answer that names no leader may
 * come from a replica a write behind, and is {@code unavailable}. Thread-safe.
 */
final class StoreListing {
    private final Connection connection;
    private final String bucket;
    private final ConnectedWait online;

    StoreListing(Connection connection, String bucket) {
        this.connection = connection;
        this.bucket = bucket;
        this.online = ConnectedWait.on(connection);
    }

    /** The keys under {@code prefix}, sorted; {@code what} names them in a refusal. */
    List<String> keys(String prefix, String what) {
        String subjectPrefix = "$KV." + bucket + ".";
        StreamInfo info;
        try {
            JetStreamManagement jsm = connection.jetStreamManagement();
            info = online.run(() -> jsm.getStreamInfo("KV_" + bucket,
                    StreamInfoOptions.filterSubjects(subjectPrefix + prefix + ">")));
        } catch (JetStreamApiException | IOException | IllegalStateException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "cannot list " + what + " now; retry shortly", e);
        }
        if (info.getClusterInfo() != null && (info.getClusterInfo().getLeader() == null
                || info.getClusterInfo().getLeader().isEmpty())) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "cannot list " + what + " now (the auth store is electing a"
                    + " leader); retry shortly");
        }
        List<String> keys = new ArrayList<>();
        List<Subject> subjects = info.getStreamState().getSubjects();
        if (subjects != null) {
            for (Subject s : subjects) {
                keys.add(s.getName().substring(subjectPrefix.length()));
            }
        }
        keys.sort(null);
        return keys;
    }
}
