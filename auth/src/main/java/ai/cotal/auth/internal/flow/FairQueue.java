package ai.cotal.auth.internal.flow;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A bounded queue whose items are grouped by a key (a request's source) and taken round-robin over
 * the keys, so one key's flood delays only its own items: each {@link #take()} serves the next key
 * in turn, its oldest item ({@code newestFirst} false) or its newest ({@code newestFirst} true).
 * Full, an {@link #add} first removes the oldest item of the key holding the most (the flooder's,
 * when one floods; the arriving key's own when it is that key) and hands it back, so the bound is
 * on memory and a quiet key always has room.
 *
 * <p>Not thread-safe: its owner holds its own lock around every call.
 */
public final class FairQueue<K, T> {
    private final int capacity;
    private final boolean newestFirst;
    private final Map<K, ArrayDeque<T>> byKey = new HashMap<>();
    /** The keys that hold items, in the order they are served. */
    private final ArrayDeque<K> turns = new ArrayDeque<>();
    private int size;

    public FairQueue(int capacity, boolean newestFirst) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1");
        }
        this.capacity = capacity;
        this.newestFirst = newestFirst;
    }

    /**
     * Queues {@code item} under {@code key}; returns the item removed to make room (see the class
     * comment), or null when there was room.
     */
    public T add(K key, T item) {
        T dropped = size < capacity ? null : dropOldestOfLargest();
        ArrayDeque<T> queue = byKey.get(key);
        if (queue == null) {
            queue = new ArrayDeque<>();
            byKey.put(key, queue);
            turns.addLast(key);
        }
        queue.addLast(item);
        size++;
        return dropped;
    }

    /** The next key's item (oldest or newest, per the order), or null when empty. */
    public T take() {
        K key = turns.pollFirst();
        if (key == null) {
            return null;
        }
        ArrayDeque<T> queue = byKey.get(key);
        T item = newestFirst ? queue.pollLast() : queue.pollFirst();
        size--;
        if (queue.isEmpty()) {
            byKey.remove(key);
        } else {
            turns.addLast(key);
        }
        return item;
    }

    public int size() {
        return size;
    }

    /** Empties the queue; returns what it held. */
    public List<T> clear() {
        List<T> all = new ArrayList<>(size);
        byKey.values().forEach(all::addAll);
        byKey.clear();
        turns.clear();
        size = 0;
        return all;
    }

    private T dropOldestOfLargest() {
        K largest = null;
        int most = 0;
        for (Map.Entry<K, ArrayDeque<T>> entry : byKey.entrySet()) {
            if (entry.getValue().size() > most) {
                most = entry.getValue().size();
                largest = entry.getKey();
            }
        }
        ArrayDeque<T> queue = byKey.get(largest);
        T dropped = queue.pollFirst();
        size--;
        if (queue.isEmpty()) {
            byKey.remove(largest);
            turns.remove(largest);
        }
        return dropped;
    }
}
