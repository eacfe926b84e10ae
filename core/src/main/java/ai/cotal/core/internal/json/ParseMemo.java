package ai.cotal.core.internal.json;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The last parse of each key's bytes, for rows that are read fresh on every call and rarely
 * change: the same bytes under the same key give the parse already made, so only a changed row
 * is parsed again. The parser must be a pure function of the bytes (a closed parse and its
 * checks); a parse that throws is not remembered, so bad bytes are refused on every read. At
 * most {@code capacity} keys are held (past it the memo starts over). Thread-safe.
 *
 * @param <T> the parsed row, immutable
 */
public final class ParseMemo<T> {
    private record Entry<T>(byte[] bytes, T value) {
    }

    private final int capacity;
    private final Map<String, Entry<T>> last = new ConcurrentHashMap<>();

    public ParseMemo(int capacity) {
        this.capacity = capacity;
    }

    /** {@code parser.apply(bytes)}, or the value it gave for exactly these bytes under {@code key} last time. */
    public T parse(String key, byte[] bytes, Function<byte[], T> parser) {
        Entry<T> seen = last.get(key);
        if (seen != null && Arrays.equals(seen.bytes(), bytes)) {
            return seen.value();
        }
        T value = parser.apply(bytes);
        if (last.size() >= capacity) {
            last.clear();
        }
        last.put(key, new Entry<>(bytes.clone(), value));
        return value;
    }
}
