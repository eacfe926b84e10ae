package ai.cotal.auth.internal.plane;

import ai.cotal.auth.internal.callout.LiveConnection;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The plane's lifecycle register (SPEC §13.16, §14.1): every connect its callout admits, under its
 * owner, actor and lifecycle uid, so a retirement can close it through the broker. In memory only:
 * a plane opened later knows none of its predecessor's connections (they end at their JWT's
 * {@code exp}). A retirement marks its lifecycle first; a connect checked before the mark and
 * recorded after it is refused.
 *
 * <p>Bounded without refusing connects (any member can connect in a loop): when full, the entry
 * that expires first is dropped and its lifecycle remembers that {@code exp}; a retirement of that
 * lifecycle cannot complete before then ({@link Marked#unknownUntil}). Thread-safe.
 */
final class LifecycleConnections {
    /** At most this many connections are recorded; past it the one that expires first is dropped. */
    static final int MAX_CONNECTIONS = 65_536;
    /** How long a mark refuses connects checked before it: longer than the broker waits for a callout. */
    static final Duration MARK = Duration.ofMinutes(2);
    private static final Comparator<LiveConnection> BY_EXPIRY = Comparator.comparingLong(LiveConnection::expiresAt)
            .thenComparing(LiveConnection::serverId).thenComparingLong(LiveConnection::clientId)
            .thenComparing(LiveConnection::userNkey);

    /**
     * What a mark found: the recorded connections still within their {@code exp}, and the latest
     * {@code exp} (unix seconds, 0 for none) of this lifecycle's connections the register dropped.
     */
    record Marked(List<LiveConnection> connections, long unknownUntil) {
    }

    private final Clock clock;
    private final int capacity;
    private final Map<String, Set<LiveConnection>> byLifecycle = new HashMap<>();
    private final TreeMap<LiveConnection, String> byExpiry = new TreeMap<>(BY_EXPIRY);
    private final Map<String, Long> dropped = new HashMap<>();
    private final Map<String, Instant> marks = new HashMap<>();

    LifecycleConnections(Clock clock) {
        this(clock, MAX_CONNECTIONS);
    }

    /** A register of {@code capacity} entries: tests only. */
    LifecycleConnections(Clock clock, int capacity) {
        this.clock = clock;
        this.capacity = capacity;
    }

    static String key(String owner, String actor, String uid) {
        return owner + "." + actor + "." + uid;
    }

    /** Records {@code connection} at its lifecycle; refused when that lifecycle was marked after the check. */
    synchronized void admit(LiveConnection connection, String owner, String actor, String uid) {
        String key = key(owner, actor, uid);
        Instant now = clock.instant();
        marks.values().removeIf(at -> at.plus(MARK).isBefore(now));
        if (marks.containsKey(key)) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, "actor " + owner + "." + actor + ": lifecycle " + uid
                    + " was retired while this connect was checked");
        }
        pruneExpired(now.getEpochSecond());
        if (byExpiry.size() >= capacity) {
            Map.Entry<LiveConnection, String> first = byExpiry.firstEntry();
            forget(first.getKey());
            dropped.merge(first.getValue(), first.getKey().expiresAt(), Math::max);
        }
        byExpiry.put(connection, key);
        byLifecycle.computeIfAbsent(key, k -> new LinkedHashSet<>()).add(connection);
    }

    /**
     * Marks the lifecycle and answers its recorded connections that have not expired (the broker
     * closed the others); they stay recorded until {@link #closed} says the broker closed them.
     */
    synchronized Marked mark(String owner, String actor, String uid) {
        String key = key(owner, actor, uid);
        Instant now = clock.instant();
        marks.put(key, now);
        pruneExpired(now.getEpochSecond());
        Set<LiveConnection> held = byLifecycle.get(key);
        return new Marked(held == null ? List.of() : List.copyOf(held), dropped.getOrDefault(key, 0L));
    }

    /** Forgets {@code connections}: the broker closed them. */
    synchronized void closed(List<LiveConnection> connections) {
        connections.forEach(this::forget);
    }

    /** How many connections are recorded (tests, monitoring). */
    synchronized int size() {
        return byExpiry.size();
    }

    private void pruneExpired(long nowSeconds) {
        while (!byExpiry.isEmpty() && byExpiry.firstKey().expiresAt() <= nowSeconds) {
            forget(byExpiry.firstKey());
        }
        dropped.values().removeIf(until -> until <= nowSeconds);
    }

    private void forget(LiveConnection connection) {
        String key = byExpiry.remove(connection);
        if (key == null) {
            return;
        }
        Set<LiveConnection> held = byLifecycle.get(key);
        if (held != null && held.remove(connection) && held.isEmpty()) {
            byLifecycle.remove(key);
        }
    }
}
