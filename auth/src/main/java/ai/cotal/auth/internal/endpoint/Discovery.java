package ai.cotal.auth.internal.endpoint;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StreamInfo;
import io.nats.client.api.StreamInfoOptions;
import io.nats.client.api.Subject;
import io.nats.client.impl.Headers;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads of the service-endpoint keys on the read-only discovery connection (its credential has no
 * publish on any {@code $KV.} subject). A key reads as absent, a row with its revision, or a
 * tombstone (a delete or purge marker is history: create-only keys stay closed over it).
 * Thread-safe.
 */
final class Discovery {
    private static final int NO_MESSAGE = 10037;

    /** What a read found on one key. */
    record Seen(String key, boolean tombstone, byte[] data, long revision) {
        static Seen absent(String key) {
            return new Seen(key, false, null, 0);
        }

        boolean present() {
            return data != null;
        }

        /** Nothing, not even history: a create-only write may go here. */
        boolean fresh() {
            return data == null && !tombstone;
        }
    }

    private final String bucket;
    private final ai.cotal.auth.internal.connect.AuthorityConnection standing;
    private final Connection connection;
    private final JetStreamManagement jsm;
    private final java.util.concurrent.atomic.AtomicLong reads = new java.util.concurrent.atomic.AtomicLong();

    Discovery(ai.cotal.auth.internal.connect.AuthorityConnection standing, String bucket) {
        this.bucket = bucket;
        this.standing = standing;
        this.connection = standing.connection();
        try {
            this.jsm = connection.jetStreamManagement();
        } catch (IOException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "service endpoints: cannot open discovery", e);
        }
    }

    String bucket() {
        return bucket;
    }

    String subject(String key) {
        return "$KV." + bucket + "." + key;
    }

    /** How many key reads and listings this discovery has made (tests prove "no read" with it). */
    long reads() {
        return reads.get();
    }

    Connection connection() {
        return connection;
    }

    /**
     * A read never waits in a reconnect buffer: while the connection is down it waits (at most
     * {@link ai.cotal.core.internal.connect.ConnectedWait#RECONNECT_WAIT}) for the connection to be back,
     * then reads (through {@link ai.cotal.core.internal.connect.ConnectedWait#run}: once more when the
     * connection turned over under it), else it fails.
     */
    private void requireConnected() {
        if (!standing.online().await(ai.cotal.core.internal.connect.ConnectedWait.RECONNECT_WAIT)) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "service endpoints: the discovery connection is "
                    + connection.getStatus().name().toLowerCase(java.util.Locale.ROOT) + "; nothing was written; retry");
        }
    }

    /** The last message on {@code key}. */
    Seen read(String key) {
        reads.incrementAndGet();
        requireConnected();
        try {
            MessageInfo info = standing.online().run(() -> jsm.getLastMessage("KV_" + bucket, subject(key)));
            Headers headers = info.getHeaders();
            if (headers != null && (headers.containsKey("KV-Operation") || headers.containsKey("Nats-Marker-Reason"))) {
                return new Seen(key, true, null, info.getSeq());
            }
            return new Seen(key, false, info.getData() == null ? new byte[0] : info.getData(), info.getSeq());
        } catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == NO_MESSAGE) {
                return Seen.absent(key);
            }
            throw new CotalException(ErrorCode.UNAVAILABLE, "service endpoints: cannot read " + key + " ("
                    + e.getApiErrorCode() + ")", e);
        } catch (IOException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "service endpoints: cannot read " + key
                    + " (the broker did not answer); nothing was written", e);
        }
    }

    /** The keys under {@code prefix} (e.g. {@code svc.asg.<owner>.}), sorted, from the stream's subject index. */
    List<String> keys(String prefix) {
        reads.incrementAndGet();
        requireConnected();
        try {
            StreamInfo info = standing.online().run(() -> jsm.getStreamInfo("KV_" + bucket,
                    StreamInfoOptions.filterSubjects(subject(prefix) + ">")));
            List<String> keys = new ArrayList<>();
            List<Subject> subjects = info.getStreamState().getSubjects();
            if (subjects != null) {
                int cut = ("$KV." + bucket + ".").length();
                for (Subject s : subjects) {
                    keys.add(s.getName().substring(cut));
                }
            }
            keys.sort(null);
            return keys;
        } catch (JetStreamApiException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "service endpoints: cannot list " + prefix + "* ("
                    + e.getApiErrorCode() + ")", e);
        } catch (IOException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "service endpoints: cannot list " + prefix + "*", e);
        }
    }
}
