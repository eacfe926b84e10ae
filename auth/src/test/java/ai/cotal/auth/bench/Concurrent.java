package ai.cotal.auth.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Runs a task on N threads, each {@code perThread} times, and reports the rate and latency percentiles. */
final class Concurrent {
    /** One unit of measured work; {@code i} counts per thread. */
    interface Task {
        void run(int thread, int i) throws Exception;
    }

    /** Per-call latencies in nanos and the wall time of the whole run. */
    record Result(long[] times, long wallNanos) {
        double rate() {
            return times.length / (wallNanos / 1e9);
        }

        double percentileMillis(double p) {
            long[] sorted = times.clone();
            Arrays.sort(sorted);
            return sorted[Math.max(0, (int) Math.ceil(sorted.length * p) - 1)] / 1e6;
        }

        /** A markdown row: name, rate, p50, p99 and the ratio to {@code floor}. */
        String row(String name, Result floor) {
            return String.format("| %s | %.0f | %.2f | %.2f | %.2fx |", name, rate(), percentileMillis(0.5),
                    percentileMillis(0.99), rate() / floor.rate());
        }
    }

    private Concurrent() {
    }

    /** The run with the median rate (interleaved repeats damp a noisy machine). */
    static Result median(List<Result> runs) {
        List<Result> sorted = new ArrayList<>(runs);
        sorted.sort(java.util.Comparator.comparingDouble(Result::rate));
        return sorted.get(sorted.size() / 2);
    }

    static Result run(int threads, int perThread, Task task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<long[]>> futures = new ArrayList<>();
        long start = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            futures.add(pool.submit(() -> {
                long[] times = new long[perThread];
                for (int i = 0; i < perThread; i++) {
                    long begin = System.nanoTime();
                    task.run(thread, i);
                    times[i] = System.nanoTime() - begin;
                }
                return times;
            }));
        }
        long[] all = new long[threads * perThread];
        int n = 0;
        for (Future<long[]> future : futures) {
            for (long t : future.get()) {
                all[n++] = t;
            }
        }
        long wall = System.nanoTime() - start;
        pool.shutdown();
        return new Result(all, wall);
    }
}
