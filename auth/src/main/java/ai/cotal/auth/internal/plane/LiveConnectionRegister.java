package ai.cotal.auth.internal.plane;

import ai.cotal.auth.internal.callout.EndpointAccess;
import ai.cotal.auth.internal.callout.LiveConnection;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The plane's live-connection register (SPEC §13.16): every connect its callout admits with
 * endpoint access, under its endpoint keys ({@link EndpointAccess#keys}: the instance it serves or
 * each grant it holds), so a revoke can close them through the broker. It lives in memory only: a
 * plane opened later finds its predecessor's connections through the broker ({@link ConnectionSweep}).
 * A revoke marks its key first; a connect checked before the mark and recorded after it is refused,
 * so none slips between the recheck and the kick (such a connect is in no broker answer yet).
 * Thread-safe.
 */
final class LiveConnectionRegister {
    /** At most this many connections are recorded; past it (after pruning the expired) a connect is refused. */
    static final int MAX_CONNECTIONS = 65_536;
    /** How long a revoke's mark refuses connects checked before it: longer than the broker waits for a callout. */
    static final Duration MARK = Duration.ofMinutes(2);

    private final Clock clock;
    private final Map<String, Set<LiveConnection>> byKey = new HashMap<>();
    private final Map<LiveConnection, List<String>> byConnection = new HashMap<>();
    private final Map<String, Instant> marks = new HashMap<>();

    LiveConnectionRegister(Clock clock) {
        this.clock = clock;
    }

    /**
     * Records {@code connection} under what {@code access} holds; {@code permission-denied} when one
     * of them was revoked after the connect was checked, {@code resource-exhausted} when full.
     */
    synchronized void admit(LiveConnection connection, EndpointAccess access) {
        List<String> keys = access.keys();
        if (keys.isEmpty()) {
            return;
        }
        Instant now = clock.instant();
        marks.values().removeIf(at -> at.plus(MARK).isBefore(now));
        for (String key : keys) {
            if (marks.containsKey(key)) {
                throw new CotalException(ErrorCode.PERMISSION_DENIED, access.serving().isPresent()
                        ? "endpoint-server: the instance was revoked while this connect was checked"
                        : "a caller grant of this connect was revoked while it was checked; connect again");
            }
        }
        if (byConnection.size() >= MAX_CONNECTIONS) {
            pruneExpired(now.getEpochSecond());
            if (byConnection.size() >= MAX_CONNECTIONS) {
                throw new CotalException(ErrorCode.RESOURCE_EXHAUSTED, "live-connection register: " + MAX_CONNECTIONS
                        + " live service-endpoint connections are recorded (the limit); retry later");
            }
        }
        byConnection.put(connection, keys);
        keys.forEach(key -> byKey.computeIfAbsent(key, k -> new LinkedHashSet<>()).add(connection));
    }

    /**
     * Marks {@code key} (an endpoint key) revoked and takes every live connection recorded under it:
     * the connections to kick, those past their {@code exp} left out (the broker closed them).
     */
    synchronized List<ConnectionEvictor.Target> revoke(String key) {
        List<ConnectionEvictor.Target> taken = new ArrayList<>();
        Instant now = clock.instant();
        marks.put(key, now);
        Set<LiveConnection> held = byKey.remove(key);
        if (held != null) {
            for (LiveConnection connection : held) {
                forget(connection);
                if (connection.expiresAt() > now.getEpochSecond()) {
                    taken.add(new ConnectionEvictor.Target(connection.serverId(), connection.clientId()));
                }
            }
        }
        return taken;
    }

    /** How many connections are recorded (tests, monitoring). */
    synchronized int size() {
        return byConnection.size();
    }

    private void pruneExpired(long nowSeconds) {
        for (LiveConnection connection : new ArrayList<>(byConnection.keySet())) {
            if (connection.expiresAt() <= nowSeconds) {
                forget(connection);
            }
        }
    }

    private void forget(LiveConnection connection) {
        List<String> keys = byConnection.remove(connection);
        if (keys == null) {
            return;
        }
        for (String key : keys) {
            Set<LiveConnection> held = byKey.get(key);
            if (held != null && held.remove(connection) && held.isEmpty()) {
                byKey.remove(key);
            }
        }
    }
}
