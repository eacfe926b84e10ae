package ai.cotal.auth.internal.plane;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
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
import io.nats.client.impl.Headers;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * A scan of the live keys under a prefix of one KV bucket, through the scanner's one literal
 * consumer: proved absent first, created ephemeral (pull, no acks, last per subject, memory, 30 s
 * inactivity), drained until the broker reports nothing pending, always deleted afterwards.
 * Delete and purge markers are left out. Scans on one scanner are serialized.
 */
final class SealedScan {
    private static final int CONSUMER_NOT_FOUND = 10014;
    private static final int MAX_ROUNDS = 4096;

    private SealedScan() {
    }

    /** The keys (without the bucket prefix) whose last operation is a put. */
    public static List<String> keys(Connection scanner, String bucket, String prefix, String consumer) {
        return List.copyOf(rows(scanner, bucket, prefix, consumer).keySet());
    }

    /** The keys (without the bucket prefix) whose last operation is a put, each with its value, in stream order. */
    public static synchronized java.util.Map<String, byte[]> rows(Connection scanner, String bucket, String prefix,
            String consumer) {
        String stream = "KV_" + bucket;
        String subjectPrefix = "$KV." + bucket + ".";
        try {
            JetStreamManagement jsm = scanner.jetStreamManagement();
            deleteIfPresent(jsm, stream, consumer);
            jsm.createConsumer(stream, ConsumerConfiguration.builder().name(consumer)
                    .filterSubject(subjectPrefix + prefix + ">").deliverPolicy(DeliverPolicy.LastPerSubject)
                    .ackPolicy(AckPolicy.None).memStorage(true).inactiveThreshold(Duration.ofSeconds(30)).build());
            try {
                java.util.Map<String, byte[]> keys = new java.util.LinkedHashMap<>();
                ConsumerContext context = scanner.jetStream().getConsumerContext(stream, consumer);
                for (int round = 0; round < MAX_ROUNDS; round++) {
                    long pending = context.getConsumerInfo().getNumPending();
                    if (pending == 0) {
                        return keys;
                    }
                    try (FetchConsumer fetch = context.fetch(FetchConsumeOptions.builder()
                            .maxMessages((int) Math.min(512, pending)).expiresIn(2000).build())) {
                        Message message;
                        while ((message = fetch.nextMessage()) != null) {
                            if (!marker(message.getHeaders())) {
                                keys.put(message.getSubject().substring(subjectPrefix.length()),
                                        message.getData() == null ? new byte[0] : message.getData());
                            }
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
