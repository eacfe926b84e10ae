package ai.cotal.core.internal.kv;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamOptions;
import io.nats.client.Message;
import io.nats.client.api.MessageGetRequest;
import io.nats.client.api.MessageInfo;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;

/**
 * Reads of one stored message from the stream's leader (SPEC §6 Reads): always
 * {@code $JS.API.STREAM.MSG.GET.<stream>}, which only a clustered stream's leader answers (a
 * replica answers "cluster not available" while its group elects, never from its own copy), and
 * never {@code DIRECT.GET}, whatever the stream's {@code allow_direct}: a direct get is served by
 * any replica, which on R3 may be a write behind. jnats' {@code getLastMessage} and
 * {@code KeyValue.get} switch to a direct get when the stream allows one; a read a decision
 * rests on uses this instead. Thread-safe.
 */
public final class LeaderGet {
    /** The API error of a get that found no message. */
    public static final int NO_MESSAGE = 10037;
    /**
     * API errors that say the stream's group cannot serve now, and nothing else (a full store also
     * answers with the HTTP-like 503, and that is a refusal): "JetStream system temporarily
     * unavailable" (10008), "JetStream cluster can not handle request" (10009, not its leader),
     * "stream is offline" (10118).
     */
    private static final Set<Integer> UNAVAILABLE = Set.of(10008, 10009, 10118);

    private final Connection connection;
    private final String prefix;
    private final Duration timeout;

    /** Reads over {@code connection} with jnats' default JetStream prefix and request timeout. */
    public LeaderGet(Connection connection) {
        this(connection, null);
    }

    /** Reads over {@code connection} that wait at most {@code timeout} (null: jnats' default request timeout). */
    public LeaderGet(Connection connection, Duration timeout) {
        this.connection = connection;
        JetStreamOptions defaults = JetStreamOptions.defaultOptions();
        this.prefix = defaults.getPrefix();
        this.timeout = timeout != null ? timeout : defaults.getRequestTimeout() != null ? defaults.getRequestTimeout()
                : connection.getOptions().getConnectionTimeout();
    }

    /** The {@code STREAM.MSG.GET} subject of {@code stream}. */
    public String subject(String stream) {
        return prefix + "STREAM.MSG.GET." + stream;
    }

    /** How long a read waits for the leader's answer. */
    public Duration timeout() {
        return timeout;
    }

    /** The last message on {@code subject}; empty when the subject has none. */
    public Optional<MessageInfo> last(String stream, String subject) throws IOException, JetStreamApiException {
        return get(stream, MessageGetRequest.lastForSubject(subject));
    }

    /** The first message on {@code subject}; empty when the subject has none. */
    public Optional<MessageInfo> first(String stream, String subject) throws IOException, JetStreamApiException {
        return get(stream, MessageGetRequest.firstForSubject(subject));
    }

    /** The first message at or after {@code sequence} on a subject matching {@code filter} (wildcards allowed). */
    public Optional<MessageInfo> next(String stream, long sequence, String filter) throws IOException, JetStreamApiException {
        return get(stream, MessageGetRequest.nextForSubject(sequence, filter));
    }

    private Optional<MessageInfo> get(String stream, MessageGetRequest request) throws IOException, JetStreamApiException {
        return answer(stream, reply(stream, request));
    }

    /**
     * The leader's answer to {@code request} on {@code stream}, unread (for a caller that reads it
     * with {@link ApiAnswers} and falls back to {@link #answer}).
     */
    public Message reply(String stream, MessageGetRequest request) throws IOException {
        try {
            return connection.requestWithTimeout(subject(stream), request.serialize(), timeout).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading " + stream, e);
        } catch (ExecutionException | CancellationException e) { // a timeout, no responders, a closed connection
            throw new IOException("the leader of " + stream + " did not answer within " + timeout.toMillis() + " ms", e);
        }
    }

    /**
     * The message a {@code STREAM.MSG.GET} answer carries; empty on "no message". A status reply
     * (no responders) is an {@link IOException}; any other API error is thrown as itself.
     */
    public static Optional<MessageInfo> answer(String stream, Message reply) throws IOException, JetStreamApiException {
        if (reply == null || reply.isStatusMessage()) {
            throw new IOException("the leader of " + stream + " did not answer"
                    + (reply == null ? "" : " (status " + reply.getStatus().getCode() + ")"));
        }
        MessageInfo info = new MessageInfo(reply, stream, false);
        if (info.hasError()) {
            if (info.getApiErrorCode() == NO_MESSAGE) {
                return Optional.empty();
            }
            info.throwOnHasError();
        }
        return Optional.of(info);
    }

    /**
     * True for an API error that says the stream cannot answer or take a write now (its group has
     * no leader, JetStream is not available): a retry later may succeed, so it is never a refusal.
     */
    public static boolean unavailable(JetStreamApiException e) {
        return unavailable(e.getApiErrorCode());
    }

    /** True for such an API error code ({@link #unavailable(JetStreamApiException)}). */
    public static boolean unavailable(int apiErrorCode) {
        return UNAVAILABLE.contains(apiErrorCode);
    }
}
