package ai.cotal.auth.exchange;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Counts events in a rolling window; {@link #record()} says whether the limit is now exceeded.
 * It keeps at most {@code limit + 1} timestamps (the newest), which is all the answer needs, so a
 * flood costs no more memory than a limit's worth. Thread-safe.
 */
final class RollingWindow {
    private final int limit;
    private final long windowMillis;
    private final Clock clock;
    private final Deque<Long> events = new ArrayDeque<>();

    RollingWindow(int limit, Duration window, Clock clock) {
        this.limit = limit;
        this.windowMillis = window.toMillis();
        this.clock = clock;
    }

    /** Records one event; true when more than {@code limit} fell inside the window. */
    synchronized boolean record() {
        long now = clock.millis();
        while (!events.isEmpty() && events.peekFirst() <= now - windowMillis) {
            events.removeFirst();
        }
        events.addLast(now);
        if (events.size() - 1 > limit) { // (no overflow at any limit)
            events.removeFirst(); // the newest limit + 1 decide: over the limit iff all are in the window
        }
        return events.size() > limit;
    }

    /**
     * True while {@code limit} events already fall inside the window: the next one would exceed
     * it. A throttled caller is refused before anything is checked, so at most {@code limit}
     * checks are made per window (SPEC §13.17). Records nothing.
     */
    synchronized boolean full() {
        long now = clock.millis();
        while (!events.isEmpty() && events.peekFirst() <= now - windowMillis) {
            events.removeFirst();
        }
        return events.size() >= limit;
    }

    /**
     * How long until the window is no longer {@link #full()}: until its oldest event leaves it.
     * Zero when it is not full now.
     */
    synchronized java.time.Duration refillIn() {
        if (!full()) {
            return java.time.Duration.ZERO;
        }
        // full: the limit's worth are in the window; the (limit)th newest leaving frees a slot
        long oldestThatCounts = events.stream().skip(events.size() - limit).findFirst().orElseThrow();
        return java.time.Duration.ofMillis(oldestThatCounts + windowMillis - clock.millis());
    }

    /** The timestamps held (tests: the memory bound). */
    synchronized int held() {
        return events.size();
    }
}
