package ai.cotal.auth.internal.endpoint;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.kv.ApiAnswers;
import ai.cotal.core.internal.kv.LeaderGet;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Message;
import io.nats.client.api.MessageGetRequest;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StreamInfo;
import io.nats.client.api.StreamInfoOptions;
import io.nats.client.api.Subject;
import io.nats.client.impl.Headers;
import io.nats.client.support.IncomingHeadersProcessor;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Reads of the service-endpoint keys on the read-only discovery connection (its credential has no
 * publish on any {@code $KV.} subject). A key reads as absent, a row with its revision, or a
 * tombstone (a delete or purge marker is history: create-only keys stay closed over it).
 * {@link #send} puts a read on the wire without waiting for it, so a pass sends together the reads
 * whose order none of its decisions depends on and waits once for their answers. Thread-safe.
 */
final class Discovery {
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

    /** A read put on the wire by {@link #send}, with when it was sent and the connection's turnover mark then. */
    static final class Sent {
        private final CompletableFuture<Message> reply;
        private final long sentAt;
        private final long mark;

        private Sent(CompletableFuture<Message> reply, long sentAt, long mark) {
            this.reply = reply;
            this.sentAt = sentAt;
            this.mark = mark;
        }
    }

    private final String bucket;
    private final ai.cotal.auth.internal.connect.AuthorityConnection standing;
    private final Connection connection;
    private final JetStreamManagement jsm;
    /** Every key read: {@code STREAM.MSG.GET}, answered by the stream's leader alone (never a direct get). */
    private final LeaderGet leader;
    /** {@code STREAM.MSG.GET} of the bucket's stream. */
    private final String msgGet;
    /** How long a read waits for the leader's answer. */
    private final Duration timeout;
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
        this.leader = new LeaderGet(connection);
        this.msgGet = leader.subject("KV_" + bucket);
        this.timeout = leader.timeout();
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
            Optional<MessageInfo> last = standing.online().run(() -> leader.last("KV_" + bucket, subject(key)));
            return last.isEmpty() ? Seen.absent(key) : seen(key, last.get());
        } catch (JetStreamApiException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "service endpoints: cannot read " + key + " ("
                    + e.getApiErrorCode() + " " + e.getErrorDescription() + "); nothing was written", e);
        } catch (IOException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "service endpoints: cannot read " + key
                    + " (the broker did not answer); nothing was written", e);
        }
    }

    private static Seen seen(String key, MessageInfo info) {
        return seen(key, info.getHeaders(), info.getData(), info.getSeq());
    }

    private static Seen seen(String key, Headers headers, byte[] data, long seq) {
        if (headers != null && (headers.containsKey("KV-Operation") || headers.containsKey("Nats-Marker-Reason"))) {
            return new Seen(key, true, null, seq);
        }
        return new Seen(key, false, data == null ? new byte[0] : data, seq);
    }

    /**
     * Sends the read of {@code key} without waiting for its answer ({@link #await} takes it); null
     * when the connection is not connected now (the key is then read by {@link #read}, which waits
     * for it to come back).
     */
    Sent send(String key) {
        if (connection.getStatus() != Connection.Status.CONNECTED) {
            return null;
        }
        reads.incrementAndGet();
        long mark = standing.online().mark();
        long sentAt = System.nanoTime();
        try {
            return new Sent(connection.requestWithTimeout(msgGet, lastForSubject(subject(key)), timeout), sentAt, mark);
        } catch (RuntimeException e) { // not sent (e.g. the connection closed meanwhile): read it the usual way
            return null;
        }
    }

    /**
     * The body of a {@code STREAM.MSG.GET} of {@code subject}'s last message, as jnats'
     * {@code MessageGetRequest} writes it; written directly when the subject is plain (letters,
     * digits, {@code . _ - $}: every host key's), else by jnats.
     */
    static byte[] lastForSubject(String subject) {
        for (int i = 0; i < subject.length(); i++) {
            char c = subject.charAt(i);
            boolean plain = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_'
                    || c == '-' || c == '$';
            if (!plain) {
                return MessageGetRequest.lastForSubject(subject).serialize();
            }
        }
        return ("{\"last_by_subj\":\"" + subject + "\"}").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    /**
     * The answer to {@link #send} of {@code key}, with the outcomes of {@link #read}: no answer
     * within the timeout while the connection stayed up fails as {@link #read}'s would; any other
     * reply that is not a clean answer (a status, a request failed early or lost to a reconnect,
     * an API error other than "no message") reads the key again with {@link #read}, which waits
     * out a reconnect and maps the failure.
     */
    Seen await(String key, Sent sent) {
        Message reply;
        try {
            reply = sent.reply.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CotalException(ErrorCode.UNAVAILABLE, "service endpoints: interrupted while reading " + key
                    + "; nothing was written", e);
        } catch (ExecutionException | java.util.concurrent.CancellationException e) {
            if (!standing.online().turnedOver(sent.mark) && System.nanoTime() - sent.sentAt >= timeout.toNanos()) {
                throw new CotalException(ErrorCode.UNAVAILABLE, "service endpoints: cannot read " + key
                        + " (the broker did not answer); nothing was written", e);
            }
            return read(key);
        }
        if (reply == null || reply.isStatusMessage()) {
            return read(key);
        }
        ApiAnswers.Get answer = ApiAnswers.get(reply.getData());
        if (answer != null && answer.error()) {
            if (LeaderGet.unavailable(answer.errorCode())) { // the group is electing: no re-read does better now
                throw new CotalException(ErrorCode.UNAVAILABLE, "service endpoints: cannot read " + key + " ("
                        + answer.errorCode() + "); nothing was written");
            }
            return answer.errorCode() == LeaderGet.NO_MESSAGE ? Seen.absent(key) : read(key);
        }
        if (answer != null) {
            return seen(key, answer.headers() == null ? null : new IncomingHeadersProcessor(answer.headers()).getHeaders(),
                    answer.data(), answer.seq());
        }
        MessageInfo info; // an answer of another shape: jnats reads it
        try {
            info = new MessageInfo(reply, "KV_" + bucket, false);
        } catch (RuntimeException e) { // an answer jnats cannot parse: let the usual read report it
            return read(key);
        }
        if (info.hasError()) {
            if (LeaderGet.unavailable(info.getApiErrorCode())) { // the group is electing: no re-read does better now
                throw new CotalException(ErrorCode.UNAVAILABLE, "service endpoints: cannot read " + key + " ("
                        + info.getApiErrorCode() + " " + info.getDescription() + "); nothing was written");
            }
            return info.getApiErrorCode() == LeaderGet.NO_MESSAGE ? Seen.absent(key) : read(key);
        }
        return seen(key, info);
    }

    /**
     * True when a stream info answer is the leader's: a clustered stream's replica answers one
     * with no leader while its group elects, from a copy that may miss the latest writes. A
     * single server names itself.
     */
    static boolean fromLeader(StreamInfo info) {
        return info.getClusterInfo() == null || (info.getClusterInfo().getLeader() != null
                && !info.getClusterInfo().getLeader().isEmpty());
    }

    /**
     * The keys under {@code prefix} (e.g. {@code svc.asg.<owner>.}), sorted, from the leader's
     * subject index; a listing no leader answered is {@code unavailable}.
     */
    List<String> keys(String prefix) {
        reads.incrementAndGet();
        requireConnected();
        try {
            StreamInfo info = standing.online().run(() -> jsm.getStreamInfo("KV_" + bucket,
                    StreamInfoOptions.filterSubjects(subject(prefix) + ">")));
            if (!fromLeader(info)) {
                throw new CotalException(ErrorCode.UNAVAILABLE, "service endpoints: cannot list " + prefix + "* (the auth"
                        + " store is electing a leader: a replica's listing may miss the latest keys); retry shortly");
            }
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
