package ai.cotal.auth.internal.endpoint;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One discovery pass: every key a plan looks at is read once, on the read-only connection, and
 * remembered with its revision and history. Single-threaded.
 */
final class Snapshot {
    private final Discovery discovery;
    private final Map<String, Discovery.Seen> seen = new LinkedHashMap<>();

    Snapshot(Discovery discovery) {
        this.discovery = discovery;
    }

    Discovery.Seen seen(String key) {
        return seen.computeIfAbsent(key, discovery::read);
    }

    /** The row at {@code key}, or null when absent or tombstoned. */
    <T extends Rows.Versioned> T row(String key, Class<T> type) {
        Discovery.Seen s = seen(key);
        return s.present() ? Rows.read(s.data(), type, key) : null;
    }

    /** The keys read so far, in reading order. */
    Iterable<String> keysRead() {
        return seen.keySet();
    }
}
