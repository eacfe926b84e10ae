package ai.cotal.auth.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time used so far by this JVM and by the nats-server processes it started, read from
 * {@code /proc} (Linux; clock ticks of 10 ms). Unavailable elsewhere, or for a broker in a
 * container: {@link #UNKNOWN}.
 */
record CpuMeter(long jvmNanos, long brokerNanos) {
    static final long UNKNOWN = -1;
    private static final long TICK_NANOS = 10_000_000L;

    static CpuMeter now() {
        long broker = 0;
        boolean found = false;
        for (ProcessHandle child : ProcessHandle.current().descendants().toList()) {
            if (child.info().command().orElse("").endsWith("nats-server")) {
                long ticks = ticks(Path.of("/proc", Long.toString(child.pid()), "stat"));
                if (ticks >= 0) {
                    broker += ticks;
                    found = true;
                }
            }
        }
        long jvm = ticks(Path.of("/proc/self/stat"));
        return new CpuMeter(jvm < 0 ? UNKNOWN : jvm * TICK_NANOS, found ? broker * TICK_NANOS : UNKNOWN);
    }

    /** utime + stime of a {@code /proc/<pid>/stat}, or -1. */
    private static long ticks(Path stat) {
        try {
            String line = Files.readString(stat);
            String[] fields = line.substring(line.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Microseconds per operation between {@code before} and this reading, for one process; -1 when unknown. */
    static double microsPerOp(long before, long after, long ops) {
        return before == UNKNOWN || after == UNKNOWN ? -1 : (after - before) / 1e3 / ops;
    }
}
