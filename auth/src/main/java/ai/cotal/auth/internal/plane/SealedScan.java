package ai.cotal.auth.internal.plane;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.kv.LeaderGet;
import io.nats.client.Connection;
import io.nats.client.ConsumerContext;
import io.nats.client.FetchConsumeOptions;
import io.nats.client.FetchConsumer;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Message;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.DeliverPolicy;
import io.nats.client.api.MessageInfo;
import io.nats.client.impl.Headers;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A scan of the live keys under a prefix of one KV bucket, through the scanner's one literal
 * consumer: proved absent first, created ephemeral (pull, no acks, last per subject, memory, 30 s
 * inactivity), drained until the broker reports nothing pending, always deleted afterwards, then
 * <b>closed by the leader</b>. Delete and purge markers are left out. Scans on one scanner are
 * serialized.
 *
 * <p>The consumer is one replica, which the broker places on any member of the stream's group
 * and which delivers from that member's copy: on R3 a follower may not have applied the latest
 * acknowledged writes. Its copy is a prefix of the leader's, and it delivers in stream order, so
 * every message under the prefix that it missed comes after the highest sequence it delivered.
 * The close asks the leader ({@code STREAM.MSG.GET}, next message by subject from that sequence
 * on) for each of those and applies it: a put adds or replaces its key, a marker removes it
 * (SPEC §6 Reads). A prefix with at most {@link #FEW} messages is read from the leader alone, one
 * {@code STREAM.MSG.GET} each, without a consumer.
 */
final class SealedScan {
    private static final int CONSUMER_NOT_FOUND = 10014;
    private static final int MAX_ROUNDS = 4096;
    /** A prefix with at most this many messages is scanned from the leader alone, one read each. */
    static final int FEW = 8;

    private SealedScan() {
    }

    /** The keys (without the bucket prefix) whose last operation is a put. */
    public static List<String> keys(Connection scanner, String bucket, String prefix, String consumer) {
        return List.copyOf(rows(scanner, bucket, prefix, consumer).keySet());
    }

    /**
     * The keys (without the bucket prefix) whose last operation is a put, each with its value, in
     * stream order. A prefix with at most {@link #FEW} messages is read from the leader alone.
     */
    public static synchronized java.util.Map<String, byte[]> rows(Connection scanner, String bucket, String prefix,
            String consumer) {
        String stream = "KV_" + bucket;
        String subjectPrefix = "$KV." + bucket + ".";
        try {
            java.util.Map<String, byte[]> few = fromLeader(new LeaderGet(scanner), stream, subjectPrefix, prefix);
            if (few != null) {
                return few;
            }
            JetStreamManagement jsm = scanner.jetStreamManagement();
            deleteIfPresent(jsm, stream, consumer);
            jsm.createConsumer(stream, ConsumerConfiguration.builder().name(consumer)
                    .filterSubject(subjectPrefix + prefix + ">").deliverPolicy(DeliverPolicy.LastPerSubject)
                    .ackPolicy(AckPolicy.None).memStorage(true).inactiveThreshold(Duration.ofSeconds(30)).build());
            try {
                java.util.Map<String, byte[]> keys = new java.util.LinkedHashMap<>();
                ConsumerContext context = scanner.jetStream().getConsumerContext(stream, consumer);
                long highest = 0;
                for (int round = 0; round < MAX_ROUNDS; round++) {
                    long pending = context.getConsumerInfo().getNumPending();
                    if (pending == 0) {
                        closeByLeader(new LeaderGet(scanner), stream, subjectPrefix, prefix, highest, keys);
                        return keys;
                    }
                    try (FetchConsumer fetch = context.fetch(FetchConsumeOptions.builder()
                            .maxMessages((int) Math.min(512, pending)).expiresIn(2000).build())) {
                        Message message;
                        while ((message = fetch.nextMessage()) != null) {
                            highest = Math.max(highest, message.metaData().streamSequence());
                            apply(keys, message.getSubject().substring(subjectPrefix.length()), message.getHeaders(),
                                    message.getData());
                        }
                    }
                }
                throw new CotalException(ErrorCode.RESOURCE_EXHAUSTED, "scan of " + bucket + " did not finish");
            } finally {
                deleteIfPresent(jsm, stream, consumer);
            }
        } catch (JetStreamApiException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "scan of " + bucket + " failed: " + e.getErrorDescription(), e);
        } catch (IOException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new CotalException(ErrorCode.UNAVAILABLE, "scan of " + bucket + " failed: " + e.getMessage(), e);
        } catch (Exception e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "scan of " + bucket + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * The whole scan from the leader when the prefix holds at most {@link #FEW} messages: every
     * message under it from the first sequence on ({@code STREAM.MSG.GET}, next by subject),
     * applied in stream order, which is what the consumer and the close together give, from the
     * leader's copy throughout. Null when there are more (the consumer reads them in bulk).
     */
    static java.util.Map<String, byte[]> fromLeader(LeaderGet leader, String stream, String subjectPrefix, String prefix)
            throws IOException, JetStreamApiException {
        java.util.Map<String, byte[]> keys = new java.util.LinkedHashMap<>();
        long next = 1;
        for (int read = 0; read <= FEW; read++) {
            Optional<MessageInfo> message = leader.next(stream, next, subjectPrefix + prefix + ">");
            if (message.isEmpty()) {
                return keys;
            }
            if (read == FEW) {
                return null;
            }
            MessageInfo m = message.get();
            apply(keys, m.getSubject().substring(subjectPrefix.length()), m.getHeaders(), m.getData());
            next = m.getSeq() + 1;
        }
        return null;
    }

    /**
     * Applies to {@code keys} every message under the prefix that the leader holds after sequence
     * {@code highest}: the writes the consumer's member had not applied when it delivered.
     */
    static void closeByLeader(LeaderGet leader, String stream, String subjectPrefix, String prefix, long highest,
            java.util.Map<String, byte[]> keys) throws IOException, JetStreamApiException {
        long next = highest + 1;
        for (int round = 0; round < MAX_ROUNDS; round++) {
            Optional<MessageInfo> later = leader.next(stream, next, subjectPrefix + prefix + ">");
            if (later.isEmpty()) {
                return;
            }
            MessageInfo message = later.get();
            apply(keys, message.getSubject().substring(subjectPrefix.length()), message.getHeaders(), message.getData());
            next = message.getSeq() + 1;
        }
        throw new CotalException(ErrorCode.RESOURCE_EXHAUSTED, "scan of " + stream + " did not finish: its leader keeps"
                + " taking writes under " + prefix);
    }

    /** The key's latest message: a put (re)places it last, in stream order; a marker removes it. */
    private static void apply(java.util.Map<String, byte[]> keys, String key, Headers headers, byte[] data) {
        keys.remove(key);
        if (!marker(headers)) {
            keys.put(key, data == null ? new byte[0] : data);
        }
    }

    private static boolean marker(Headers headers) {
        return headers != null && (headers.containsKey("KV-Operation") || headers.containsKey("Nats-Marker-Reason"));
    }

    private static void deleteIfPresent(JetStreamManagement jsm, String stream, String consumer)
            throws IOException, JetStreamApiException {
        try {
            jsm.deleteConsumer(stream, consumer);
        } catch (JetStreamApiException e) {
            if (e.getApiErrorCode() != CONSUMER_NOT_FOUND) {
                throw e;
            }
        }
    }
}
