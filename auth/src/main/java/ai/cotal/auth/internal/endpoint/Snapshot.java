package ai.cotal.auth.internal.endpoint;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One discovery pass: every key a plan looks at is read once, on the read-only connection, and
 * remembered with its revision and history. Keys the pass is known to read can be sent together
 * up front ({@link #send}); each is still taken, in the plan's order, when the plan first looks
 * at it. Single-threaded.
 */
final class Snapshot {
    private final Discovery discovery;
    private final Map<String, Discovery.Seen> seen = new LinkedHashMap<>();
    private final Map<String, Discovery.Sent> sent = new HashMap<>();

    Snapshot(Discovery discovery) {
        this.discovery = discovery;
    }

    /** Sends the reads of {@code keys} not read or sent yet, without waiting for their answers. */
    void send(String... keys) {
        for (String key : keys) {
            if (!seen.containsKey(key) && !sent.containsKey(key)) {
                Discovery.Sent read = discovery.send(key);
                if (read != null) {
                    sent.put(key, read);
                }
            }
        }
    }

    Discovery.Seen seen(String key) {
        Discovery.Seen known = seen.get(key);
        if (known == null) {
            Discovery.Sent read = sent.remove(key);
            known = read == null ? discovery.read(key) : discovery.await(key, read);
            seen.put(key, known);
        }
        return known;
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
