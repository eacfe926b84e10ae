package ai.cotal.core.internal.kv;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.Message;
import io.nats.client.api.StreamInfo;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The {@code STREAM.INFO} of several streams, every request sent before any answer is awaited:
 * one round trip of waiting instead of one per stream. Each answer is then taken on its own and
 * means what jnats' {@code getStreamInfo} would have made of it (an API error as
 * {@link JetStreamApiException}, no answer in time or no responder as {@link IOException}).
 * Requests go to jnats' default JetStream prefix, {@code $JS.API.}. Not thread-safe: one caller
 * sends and awaits.
 */
public final class StreamInfos {
    /** The API error of an info of a stream that does not exist. */
    public static final int STREAM_NOT_FOUND = 10059;

    private final Map<String, CompletableFuture<Message>> replies = new LinkedHashMap<>();
    private final Map<String, IOException> unsent = new LinkedHashMap<>();

    private StreamInfos() {
    }

    /** Sends the info request of every stream of {@code streams} on {@code connection} at once. */
    public static StreamInfos send(Connection connection, List<String> streams, Duration timeout) {
        StreamInfos infos = new StreamInfos();
        for (String stream : streams) {
            try {
                infos.replies.put(stream, connection.requestWithTimeout("$JS.API.STREAM.INFO." + stream, null, timeout));
            } catch (IllegalStateException e) { // jnats on a closed connection
                infos.unsent.put(stream, new IOException("cannot send the info request of " + stream, e));
            }
        }
        return infos;
    }

    /** The info of {@code stream}, one of those sent; API errors and transport failures as jnats reports them. */
    public StreamInfo await(String stream) throws IOException, JetStreamApiException {
        IOException notSent = unsent.get(stream);
        if (notSent != null) {
            throw notSent;
        }
        CompletableFuture<Message> reply = replies.get(stream);
        if (reply == null) {
            throw new IllegalArgumentException("no info request was sent for " + stream);
        }
        Message answer;
        try {
            answer = reply.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading the info of " + stream, e);
        } catch (ExecutionException | CancellationException e) {
            throw new IOException("no answer to the info request of " + stream + " in time", e);
        }
        if (answer.isStatusMessage()) {
            throw new IOException("the info request of " + stream + " was answered " + answer.getStatus().getCode()
                    + " (no JetStream responder)");
        }
        return new StreamInfo(answer).throwOnHasError();
    }

    /** {@link #await}, with a stream that does not exist as empty. */
    public Optional<StreamInfo> awaitIfExists(String stream) throws IOException, JetStreamApiException {
        try {
            return Optional.of(await(stream));
        } catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == STREAM_NOT_FOUND) {
                return Optional.empty();
            }
            throw e;
        }
    }
}
