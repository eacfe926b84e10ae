package ai.cotal.auth.internal.plane;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.kv.StreamInfos;
import ai.cotal.core.stores.StoreSpecs;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.api.StreamInfo;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The store-pressure signal (SPEC §13.20): the bytes a store uses against its {@code max_bytes},
 * read with {@code STREAM.INFO} on the connections the plane already has, cached, and refreshed
 * by the one caller that finds the cache older than {@link #MAX_AGE} or {@link #MAX_WRITES}
 * budgeted writes old (every other caller answers from the cache meanwhile). A store above
 * {@link StoreSpecs#HIGH_WATER} of its bound refuses new budgeted writes with
 * {@code resource-exhausted}, before the broker's own discard-new refusal would hit every writer.
 * A read that fails keeps the last answer (a store never read is not refused: the write itself
 * meets the broker). Thread-safe.
 */
final class StorePressure {
    /** The longest a cached fill is used. */
    static final Duration MAX_AGE = Duration.ofSeconds(2);
    /** The most budgeted writes admitted on one cached fill. */
    static final int MAX_WRITES = 64;
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(1);

    private record Fill(long bytes, long maxBytes, long readAtMillis) {
        boolean above() {
            return maxBytes > 0 && bytes >= (long) (maxBytes * StoreSpecs.HIGH_WATER);
        }

        int percent() {
            return (int) Math.min(100, bytes * 100 / maxBytes);
        }
    }

    private final Map<String, Connection> readers = new LinkedHashMap<>();
    private final Map<String, Fill> fills = new java.util.concurrent.ConcurrentHashMap<>();
    private final Clock clock;
    private final AtomicBoolean refreshing = new AtomicBoolean();
    private final AtomicInteger writesSinceRead = new AtomicInteger();
    private volatile long readAt = Long.MIN_VALUE;
    /** The first reading's requests, sent at construction; the first caller applies their answers. */
    private volatile Map<String, StreamInfos> first;

    /**
     * Watches each stream of {@code streams} over the connection it maps to (which may read its
     * {@code STREAM.INFO}). The first reading is sent now, without waiting; the first caller of
     * {@link #requireRoom} or {@link #readings} takes its answers.
     */
    StorePressure(Map<String, Connection> streams, Clock clock) {
        this.clock = clock;
        readers.putAll(streams);
        writesSinceRead.set(0);
        first = send(); // taken by the first caller: the open does not wait for the answers
        readAt = clock.millis();
    }

    /**
     * Refuses a budgeted write into {@code streams} when any of them is above the high-water
     * mark; {@code what} names the writes refused (e.g. "new credentials"). Counts the write.
     */
    void requireRoom(List<String> streams, String what) {
        settleFirst();
        if (writesSinceRead.incrementAndGet() >= MAX_WRITES || clock.millis() - readAt >= MAX_AGE.toMillis()) {
            if (refreshing.compareAndSet(false, true)) {
                try {
                    refresh();
                } finally {
                    refreshing.set(false);
                }
            }
        }
        for (String stream : streams) {
            Fill fill = fills.get(stream);
            if (fill != null && fill.above()) {
                throw new CotalException(ErrorCode.RESOURCE_EXHAUSTED, "store pressure: " + stream + " at "
                        + fill.percent() + "% of its bound (max_bytes " + fill.maxBytes() + ", refusing above "
                        + Math.round(StoreSpecs.HIGH_WATER * 100) + "%); " + what + " of this space are refused until"
                        + " rows expire or an operator raises the bound; retry later");
            }
        }
    }

    /** One watched store as last read ({@code readAtMillis} 0: never read). */
    record Reading(String stream, long bytes, long maxBytes, boolean refusing, long readAtMillis) {
    }

    /**
     * The watched stores as last read, in the order given (SPEC §13.21): never waits on the broker.
     * A cache older than {@link #MAX_AGE} is refreshed on {@code background}, by one caller.
     */
    List<Reading> readings(java.util.concurrent.Executor background) {
        settleFirst();
        if (clock.millis() - readAt >= MAX_AGE.toMillis() && refreshing.compareAndSet(false, true)) {
            try {
                background.execute(() -> {
                    try {
                        refresh();
                    } finally {
                        refreshing.set(false);
                    }
                });
            } catch (java.util.concurrent.RejectedExecutionException e) {
                refreshing.set(false); // the plane is closing: the last answer stands
            }
        }
        List<Reading> out = new java.util.ArrayList<>();
        for (String stream : readers.keySet()) {
            Fill fill = fills.get(stream);
            out.add(fill == null ? new Reading(stream, 0, 0, false, 0)
                    : new Reading(stream, fill.bytes(), fill.maxBytes(), fill.above(), fill.readAtMillis()));
        }
        return out;
    }

    /**
     * Reads every watched store once, the reads sent together; a failed read keeps that store's
     * last answer.
     */
    private void refresh() {
        writesSinceRead.set(0);
        apply(send());
        readAt = clock.millis();
    }

    /** Applies the first reading's answers once, whoever asks first. */
    private void settleFirst() {
        if (first == null) {
            return;
        }
        synchronized (this) {
            Map<String, StreamInfos> sent = first;
            if (sent != null) {
                apply(sent);
                first = null;
            }
        }
    }

    private Map<String, StreamInfos> send() {
        Map<String, StreamInfos> sent = new LinkedHashMap<>();
        readers.forEach((stream, connection) -> sent.put(stream, StreamInfos.send(connection, List.of(stream),
                READ_TIMEOUT)));
        return sent;
    }

    private void apply(Map<String, StreamInfos> sent) {
        for (Map.Entry<String, StreamInfos> reader : sent.entrySet()) {
            try {
                StreamInfo info = reader.getValue().await(reader.getKey());
                fills.put(reader.getKey(), new Fill(info.getStreamState().getByteCount(),
                        info.getConfiguration().getMaxBytes(), clock.millis()));
            } catch (JetStreamApiException | IOException | IllegalStateException e) {
                // keep the last answer; the write itself meets the broker
            }
        }
    }
}
