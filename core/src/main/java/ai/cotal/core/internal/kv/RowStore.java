package ai.cotal.core.internal.kv;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.Message;
import io.nats.client.PublishOptions;
import io.nats.client.api.MessageGetRequest;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import io.nats.client.support.IncomingHeadersProcessor;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Create-only and compare-and-set writes and first/last reads on one KV bucket's stream, without
 * the KV client's conveniences: a delete or purge marker is never "absent" here, it is corruption
 * ({@code data-loss}). Every read goes to the stream leader ({@link LeaderGet}), whether or not
 * the bucket allows direct gets: the rows read here decide writes and answers (SPEC §6 Reads). A
 * stream that cannot answer or take a write now (its group electing a leader) is
 * {@code unavailable}, never a refusal. Thread-safe.
 */
public final class RowStore {
    private static final int WRONG_LAST_SEQUENCE = 10071;

    /** A stored row: its bytes and its stream sequence (the revision). */
    public record Row(byte[] data, long revision) {
    }

    /** What a key's last message is: a row, a KV delete marker, or any other marker (a purge, an expiry). */
    public enum Op { PUT, DELETE, OTHER }

    /**
     * A key's last message as it stands, markers included: its operation, its bytes (empty for a
     * marker) and its stream sequence (the revision a compare-and-set or {@link #delete} names).
     */
    public record Entry(Op op, byte[] data, long revision) {
    }

    /** A read of a key's last message put on the wire by {@link #sendLast}; {@link #awaitLast} takes its answer. */
    public static final class PendingRead {
        private final String key;
        private final CompletableFuture<Message> reply;
        private final long sentAt;
        private final long mark;

        private PendingRead(String key, CompletableFuture<Message> reply, long sentAt, long mark) {
            this.key = key;
            this.reply = reply;
            this.sentAt = sentAt;
            this.mark = mark;
        }
    }

    private final String bucket;
    private final Connection connection;
    private final JetStream js;
    private final LeaderGet leader;
    private final ai.cotal.core.internal.connect.ConnectedWait online;
    /** {@code STREAM.MSG.GET} of the bucket's stream, as {@link #jsm} sends it, and how long it waits for the answer. */
    private final String msgGet;
    private final Duration timeout;

    /**
     * Rows of {@code bucket} over {@code connection}. A read that meets the connection reconnecting
     * waits for it (at most {@link ai.cotal.core.internal.connect.ConnectedWait#RECONNECT_WAIT}); a read whose connection turned over under it
     * runs once more. Writes never retry (the caller decides, from the typed refusal).
     */
    public RowStore(Connection connection, String bucket) {
        this(connection, bucket, null);
    }

    /** Rows of {@code bucket} whose reads wait at most {@code readTimeout} for the leader's answer (null: jnats' default). */
    public RowStore(Connection connection, String bucket, Duration readTimeout) {
        this.bucket = bucket;
        this.connection = connection;
        this.online = ai.cotal.core.internal.connect.ConnectedWait.on(connection);
        this.leader = new LeaderGet(connection, readTimeout);
        this.msgGet = leader.subject(stream());
        this.timeout = leader.timeout();
        try {
            this.js = connection.jetStream();
        } catch (IOException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "cannot open JetStream for " + bucket, e);
        }
    }

    public String stream() {
        return "KV_" + bucket;
    }

    private String subject(String key) {
        return "$KV." + bucket + "." + key;
    }

    /** Writes {@code data} only when {@code key} has no message; returns the revision, or empty when taken. */
    public Optional<Long> create(String key, byte[] data) {
        return write(key, data, 0);
    }

    /** Writes {@code data} only when {@code key}'s last message is {@code revision}; empty when it moved. */
    public Optional<Long> compareAndSet(String key, byte[] data, long revision) {
        return write(key, data, revision);
    }

    /**
     * Writes a KV delete marker ({@code KV-Operation: DEL}) on {@code key} only when its last
     * message is {@code revision}; the revision of the marker, or empty when the key moved.
     */
    public Optional<Long> delete(String key, long revision) {
        Headers headers = new Headers();
        headers.put("KV-Operation", "DEL");
        return write(key, headers, new byte[0], revision);
    }

    private Optional<Long> write(String key, byte[] data, long expected) {
        return write(key, null, data, expected);
    }

    private Optional<Long> write(String key, Headers headers, byte[] data, long expected) {
        try {
            PublishAck ack = js.publish(subject(key), headers, data,
                    PublishOptions.builder().expectedLastSubjectSequence(expected).build());
            return Optional.of(ack.getSeqno());
        } catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == WRONG_LAST_SEQUENCE) {
                return Optional.empty();
            }
            if (LeaderGet.unavailable(e)) {
                throw new CotalException(ErrorCode.UNAVAILABLE, "cannot write " + bucket + " " + key + " now ("
                        + e.getApiErrorCode() + " " + e.getErrorDescription() + "); retry shortly", e);
            }
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "the broker refused a write to " + bucket + " "
                    + key + ": " + e.getApiErrorCode() + " " + e.getErrorDescription(), e);
        } catch (IOException | IllegalStateException e) { // IllegalStateException: jnats on a closed connection
            throw new CotalException(ErrorCode.UNAVAILABLE, "cannot write " + bucket + " " + key, e);
        }
    }

    /** The first message ever written on {@code key} (immutable rows). */
    public Optional<Row> first(String key) {
        return read(key, true, false);
    }

    /** The last message on {@code key} (the attempt row). */
    public Optional<Row> last(String key) {
        return read(key, false, false);
    }

    /**
     * The last message on {@code key} of a row that ends by a delete or an expiry (a row written
     * with a TTL): a delete, purge or expiry marker there reads as absent, not as corruption.
     */
    public Optional<Row> lastLive(String key) {
        return read(key, false, true);
    }

    /** The last message on {@code key} as it stands, a marker as {@link Op#DELETE} or {@link Op#OTHER}; empty when none. */
    public Optional<Entry> lastEntry(String key) {
        try {
            return online.run(() -> entryOnce(key));
        } catch (IOException | IllegalStateException e) { // IllegalStateException: jnats on a closed connection
            throw new CotalException(ErrorCode.UNAVAILABLE, "cannot read " + bucket + " " + key + " (" + e.getMessage()
                    + "); retry shortly", e);
        }
    }

    /**
     * {@link #lastEntry}'s outcome for a {@link #sendLast}, as {@link #awaitLast} is {@link #last}'s:
     * the clean answer, or a read in place when the one sent ahead was not answered cleanly.
     */
    public Optional<Entry> awaitEntry(PendingRead read) {
        Optional<Message> reply = answer(read);
        Optional<Entry> clean = reply.isPresent() ? cleanEntry(reply.get()) : null;
        return clean != null ? clean : lastEntry(read.key);
    }

    private Optional<Entry> cleanEntry(Message reply) {
        ApiAnswers.Get answer = reply == null || reply.isStatusMessage() ? null : ApiAnswers.get(reply.getData());
        if (answer == null || answer.error() && answer.errorCode() != LeaderGet.NO_MESSAGE) {
            return null;
        }
        if (answer.error()) {
            return Optional.empty();
        }
        Headers headers = answer.headers() == null ? null : new IncomingHeadersProcessor(answer.headers()).getHeaders();
        return Optional.of(entry(headers, answer.data(), answer.seq()));
    }

    private Optional<Entry> entryOnce(String key) throws IOException {
        try {
            Message reply = leader.reply(stream(), MessageGetRequest.lastForSubject(subject(key)));
            Optional<Entry> clean = cleanEntry(reply);
            if (clean != null) {
                return clean;
            }
            return LeaderGet.answer(stream(), reply).map(info -> entry(info.getHeaders(), info.getData(), info.getSeq()));
        } catch (JetStreamApiException e) {
            if (LeaderGet.unavailable(e)) {
                throw new IOException(e.getApiErrorCode() + " " + e.getErrorDescription(), e);
            }
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "cannot read " + bucket + " " + key + ": "
                    + e.getApiErrorCode() + " " + e.getErrorDescription(), e);
        }
    }

    private static Entry entry(Headers headers, byte[] data, long seq) {
        byte[] bytes = data == null ? new byte[0] : data;
        if (headers == null || !headers.containsKey("KV-Operation") && !headers.containsKey("Nats-Marker-Reason")) {
            return new Entry(Op.PUT, bytes, seq);
        }
        boolean delete = !headers.containsKey("Nats-Marker-Reason") && "DEL".equals(headers.getFirst("KV-Operation"));
        return new Entry(delete ? Op.DELETE : Op.OTHER, new byte[0], seq);
    }

    /**
     * Sends the read of {@code key}'s last message without waiting for its answer, so that no
     * thread waits while it travels. When the connection is not connected now nothing is sent:
     * {@link #awaitLast} then reads with {@link #last}, which waits for it to come back.
     */
    public PendingRead sendLast(String key) {
        if (connection.getStatus() != Connection.Status.CONNECTED) {
            return new PendingRead(key, null, 0, 0);
        }
        long mark = online.mark();
        long sentAt = System.nanoTime();
        try {
            return new PendingRead(key, connection.requestWithTimeout(msgGet, lastBySubject(key), timeout), sentAt, mark);
        } catch (RuntimeException e) { // not sent (e.g. the connection closed meanwhile): read it the usual way
            return new PendingRead(key, null, 0, 0);
        }
    }

    /**
     * The {@code STREAM.MSG.GET} body asking for {@code key}'s last message: written directly when
     * the subject needs no JSON escape (every key the SDK reads), else by jnats.
     */
    private byte[] lastBySubject(String key) {
        String subject = subject(key);
        for (int i = 0; i < subject.length(); i++) {
            char c = subject.charAt(i);
            if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
                return MessageGetRequest.lastForSubject(subject).serialize();
            }
        }
        return ("{\"last_by_subj\":\"" + subject + "\"}").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    /**
     * {@link #last}'s outcome for a {@link #sendLast}: the answer when it is a clean one; no answer
     * in time while the connection stayed up fails as {@link #last}'s would; anything else (not
     * sent, a status, a request lost to a reconnect, an answer of another shape or another API
     * error than "no message") reads again with {@link #last}.
     */
    public Optional<Row> awaitLast(PendingRead read) {
        return await(read, false);
    }

    /** {@link #lastLive}'s outcome for a {@link #sendLast}, as {@link #awaitLast} is {@link #last}'s. */
    public Optional<Row> awaitLive(PendingRead read) {
        return await(read, true);
    }

    private Optional<Row> await(PendingRead read, boolean markersAbsent) {
        Optional<Message> reply = answer(read);
        Optional<Row> clean = reply.isPresent() ? clean(read.key, reply.get(), markersAbsent) : null;
        return clean != null ? clean : read(read.key, false, markersAbsent);
    }

    /**
     * The answer to a read sent ahead; empty when it was not sent or not answered while the
     * connection turned over or within the timeout's reach (the caller reads in place).
     *
     * @throws CotalException {@code unavailable} when the broker did not answer within the timeout
     */
    private Optional<Message> answer(PendingRead read) {
        if (read.reply == null) {
            return Optional.empty();
        }
        try {
            return Optional.ofNullable(read.reply.get());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CotalException(ErrorCode.UNAVAILABLE, "interrupted while reading " + bucket + " " + read.key, e);
        } catch (ExecutionException | java.util.concurrent.CancellationException e) {
            if (!online.turnedOver(read.mark) && System.nanoTime() - read.sentAt >= timeout.toNanos()) {
                throw new CotalException(ErrorCode.UNAVAILABLE, "cannot read " + bucket + " " + read.key
                        + " (the broker did not answer); retry shortly", e);
            }
            return Optional.empty();
        }
    }

    /**
     * The row a clean {@code STREAM.MSG.GET} answer carries (empty on "no message"), read in one
     * pass ({@link ApiAnswers}); null for any other answer (a status, another API error, another
     * shape), which the caller reads the usual way.
     */
    private Optional<Row> clean(String key, Message reply, boolean markersAbsent) {
        ApiAnswers.Get answer = reply == null || reply.isStatusMessage() ? null : ApiAnswers.get(reply.getData());
        if (answer == null || answer.error() && answer.errorCode() != LeaderGet.NO_MESSAGE) {
            return null;
        }
        if (answer.error()) {
            return Optional.empty();
        }
        Headers headers = answer.headers() == null ? null : new IncomingHeadersProcessor(answer.headers()).getHeaders();
        return row(key, headers, answer.data(), answer.seq(), markersAbsent);
    }

    private Optional<Row> read(String key, boolean first, boolean markersAbsent) {
        try {
            return online.run(() -> readOnce(key, first, markersAbsent));
        } catch (IOException | IllegalStateException e) { // IllegalStateException: jnats on a closed connection
            throw new CotalException(ErrorCode.UNAVAILABLE, "cannot read " + bucket + " " + key + " (" + e.getMessage()
                    + "); retry shortly", e);
        }
    }

    private Optional<Row> row(String key, Headers headers, byte[] data, long seq, boolean markersAbsent) {
        if (headers != null && (headers.containsKey("KV-Operation") || headers.containsKey("Nats-Marker-Reason"))) {
            if (markersAbsent) {
                return Optional.empty();
            }
            throw new CotalException(ErrorCode.DATA_LOSS, bucket + " " + key
                    + " is corrupt: a delete or purge marker stands where a row belongs");
        }
        return Optional.of(new Row(data == null ? new byte[0] : data, seq));
    }

    private Optional<Row> readOnce(String key, boolean first, boolean markersAbsent) throws IOException {
        try {
            Message reply = leader.reply(stream(), first ? MessageGetRequest.firstForSubject(subject(key))
                    : MessageGetRequest.lastForSubject(subject(key)));
            Optional<Row> clean = clean(key, reply, markersAbsent);
            if (clean != null) {
                return clean;
            }
            Optional<MessageInfo> found = LeaderGet.answer(stream(), reply);
            if (found.isEmpty()) {
                return Optional.empty();
            }
            MessageInfo info = found.get();
            return row(key, info.getHeaders(), info.getData(), info.getSeq(), markersAbsent);
        } catch (JetStreamApiException e) {
            if (LeaderGet.unavailable(e)) {
                throw new IOException(e.getApiErrorCode() + " " + e.getErrorDescription(), e);
            }
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "cannot read " + bucket + " " + key + ": "
                    + e.getApiErrorCode() + " " + e.getErrorDescription(), e);
        }
    }
}
