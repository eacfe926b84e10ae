package ai.cotal.core.internal.kv;

import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One atomic batch on one KV bucket's stream (nats-server 2.12 or later, {@code allow_atomic} on
 * the stream), as jnats 2.26 has no batch API: plain publishes with the batch headers, in order on
 * one connection, every message but the last without a reply, the last committing the batch as a
 * request. The broker stores all of them or none; the commit's answer is the batch's publish ack
 * or its error. Stateless.
 */
public final class AtomicBatch {
    private static final SecureRandom RANDOM = new SecureRandom();

    /** One message of a batch: its key in the bucket, its own headers (may be null) and its bytes. */
    public record Put(String key, Headers headers, byte[] data) {
    }

    private AtomicBatch() {
    }

    /** {@code Nats-Expected-Last-Subject-Sequence: revision}, the create-only (0) or compare-and-set condition. */
    public static Headers expecting(long revision) {
        return new Headers().put("Nats-Expected-Last-Subject-Sequence", Long.toString(revision));
    }

    /** A fresh batch id: 22 random base64url characters. */
    public static String batchId() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /**
     * Sends {@code puts} as one batch on {@code bucket}; the future completes with the commit's
     * answer (parse it with jnats' {@code PublishAck}) or exceptionally when none came within
     * {@code timeout} or the connection turned over.
     *
     * @throws IllegalStateException when the connection is closed (jnats), possibly after part of
     *     the batch was sent, which the broker never commits
     */
    public static CompletableFuture<Message> send(Connection connection, String bucket, List<Put> puts, Duration timeout) {
        if (puts.isEmpty()) {
            throw new IllegalArgumentException("an atomic batch holds at least one message");
        }
        String id = batchId();
        for (int i = 0; i < puts.size(); i++) {
            Put put = puts.get(i);
            Headers headers = (put.headers() == null ? new Headers() : new Headers(put.headers()))
                    .put("Nats-Batch-Id", id).put("Nats-Batch-Sequence", Integer.toString(i + 1));
            NatsMessage.Builder message = NatsMessage.builder().subject("$KV." + bucket + "." + put.key()).data(put.data());
            if (i < puts.size() - 1) {
                connection.publish(message.headers(headers).build());
            } else {
                headers.put("Nats-Batch-Commit", "1");
                return connection.requestWithTimeout(message.headers(headers).build(), timeout);
            }
        }
        throw new IllegalStateException("unreachable");
    }
}
