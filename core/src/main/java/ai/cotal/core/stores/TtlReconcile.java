package ai.cotal.core.stores;

import ai.cotal.core.CotalException;
import ai.cotal.core.internal.kv.LeaderGet;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.StreamConfiguration;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;

/**
 * Reconciles a TTL bucket whose expiry drifted (SPEC §6.1): a KV create never reconfigures an
 * existing bucket, so setup updates {@code max_age} and the duplicate window together, reads the
 * configuration back, then proves the broker expires rows with a canary key.
 */
final class TtlReconcile {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(TtlReconcile.class);
    static final String CANARY_KEY = "_cotal_ttl_reconcile";
    private static final Duration POLL = Duration.ofMillis(100);
    private static final Duration GRACE = Duration.ofSeconds(2);

    private TtlReconcile() {
    }

    /** True when {@code live} differs from {@code expected} in its expiry or duplicate window and nothing else. */
    static boolean onlyTtl(StreamConfiguration expected, StreamConfiguration live) {
        boolean ttlDiffers = !Objects.equals(expected.getMaxAge(), live.getMaxAge())
                || !Objects.equals(expected.getDuplicateWindow(), live.getDuplicateWindow());
        return ttlDiffers && StoreDrift.differences(expected, StreamConfiguration.builder(live).maxAge(expected.getMaxAge())
                .duplicateWindow(expected.getDuplicateWindow()).build()).isEmpty();
    }

    static StreamConfiguration reconcile(Connection connection, JetStreamManagement jsm, StreamConfiguration expected,
            StreamConfiguration live) {
        String stream = expected.getName();
        StreamConfiguration updated;
        try {
            updated = jsm.updateStream(StreamConfiguration.builder(live).maxAge(expected.getMaxAge())
                    .duplicateWindow(expected.getDuplicateWindow()).build()).getConfiguration();
        } catch (JetStreamApiException e) {
            throw SpaceStores.apiFailure("reconcile the TTL of " + stream, e);
        } catch (IOException e) {
            throw SpaceStores.unavailable("reconcile the TTL of " + stream, e);
        }
        StreamConfiguration readBack = SpaceStores.info(jsm, stream).orElseThrow(() -> CotalException.failedPrecondition(
                "store " + stream + " vanished while its TTL was reconciled")).getConfiguration();
        SpaceStores.verify(expected, readBack);
        LOG.info("space-stores: reconciled {}: max_age {} -> {} ms (SPEC §6.1)", stream, millis(live.getMaxAge()),
                expected.getMaxAge().toMillis());
        canary(connection, stream, expected.getMaxAge());
        return updated;
    }

    /** Writes the canary key and waits (at most TTL + 2 s) for the broker to expire it. */
    private static void canary(Connection connection, String stream, Duration ttl) {
        String subject = "$KV." + stream.substring("KV_".length()) + "." + CANARY_KEY;
        try {
            connection.jetStream().publish(subject, "ttl-canary".getBytes(StandardCharsets.UTF_8));
            // the leader's copy (never a direct get): a replica that has not applied the canary yet reads "gone" too
            LeaderGet leader = new LeaderGet(connection);
            long deadline = System.nanoTime() + ttl.plus(GRACE).toNanos();
            while (System.nanoTime() < deadline) {
                try {
                    if (leader.last(stream, subject).isEmpty()) {
                        return;
                    }
                } catch (JetStreamApiException e) {
                    throw SpaceStores.apiFailure("read the TTL canary of " + stream, e);
                }
                Thread.sleep(POLL.toMillis()); // expiry has no event to wait on: poll, bounded by the deadline
            }
        } catch (JetStreamApiException e) {
            throw SpaceStores.apiFailure("write the TTL canary of " + stream, e);
        } catch (IOException e) {
            throw SpaceStores.unavailable("write the TTL canary of " + stream, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw CotalException.failedPrecondition("interrupted while proving the TTL of " + stream);
        }
        throw CotalException.failedPrecondition("store " + stream + ": TTL not persisted: the canary "
                + CANARY_KEY + " outlived max_age " + ttl.toMillis() + " ms + 2 s");
    }

    private static long millis(Duration d) {
        return d == null ? 0 : d.toMillis();
    }
}
