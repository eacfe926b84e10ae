package ai.cotal.testbroker;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The broker's output lines, numbered from 0 across restarts, with a wait for a line that matches.
 * Keeps the last {@value #KEPT} lines. Thread-safe: one thread appends, any thread waits or reads.
 */
public final class BrokerLog {
    private static final int KEPT = 20_000;

    private final Deque<String> lines = new ArrayDeque<>();
    private long total;

    synchronized void append(String line) {
        lines.addLast(line);
        if (lines.size() > KEPT) {
            lines.removeFirst();
        }
        total++;
        notifyAll();
    }

    /** The number of lines seen so far: pass it to {@link #await} to wait only for later lines. */
    public synchronized long mark() {
        return total;
    }

    /**
     * Waits until a line numbered {@code from} or later matches, and returns it; empty when
     * {@code timeout} passes first.
     */
    public synchronized Optional<String> await(long from, Predicate<String> match, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long checked = Math.max(from, total - lines.size());
        while (true) {
            long firstKept = total - lines.size();
            int index = 0;
            for (String line : lines) {
                long number = firstKept + index++;
                if (number >= checked && match.test(line)) {
                    return Optional.of(line);
                }
            }
            checked = total;
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return Optional.empty();
            }
            try {
                wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        }
    }

    /** True when a line numbered {@code from} or later contains {@code text}. */
    public synchronized boolean containsSince(long from, String text) {
        long number = total - lines.size();
        for (String line : lines) {
            if (number++ >= from && line.contains(text)) {
                return true;
            }
        }
        return false;
    }

    /** The last {@code count} lines, oldest first. */
    public synchronized List<String> tail(int count) {
        List<String> all = new ArrayList<>(lines);
        return all.subList(Math.max(0, all.size() - count), all.size());
    }
}
