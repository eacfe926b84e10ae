package ai.cotal.auth.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time (user + system, in clock ticks of 10 ms) of this JVM and of the loopback nats-server
 * it started, read from {@code /proc/<pid>/stat}: a scenario's cost per operation that, unlike
 * its rate, does not grow when other processes take the cores. Linux only; -1 elsewhere.
 */
final class ProcessCpu {
    /** USER_HZ: the unit of {@code utime} and {@code stime} on Linux ({@code getconf CLK_TCK}). */
    static final long TICKS_PER_SECOND = 100;

    private final long broker;

    private ProcessCpu(long broker) {
        this.broker = broker;
    }

    /** The JVM and its child nats-server (the one {@code NatsBroker} started locally; -1 ticks if none). */
    static ProcessCpu ofBroker() {
        return new ProcessCpu(ProcessHandle.current().children()
                .filter(p -> p.info().command().map(c -> c.endsWith("nats-server")).orElse(false))
                .mapToLong(ProcessHandle::pid).findFirst().orElse(-1));
    }

    long brokerTicks() {
        return broker < 0 ? -1 : ticks(Long.toString(broker));
    }

    long jvmTicks() {
        return ticks("self");
    }

    private static long ticks(String pid) {
        try {
            String stat = Files.readString(Path.of("/proc", pid, "stat"));
            // fields after the parenthesised command name; utime and stime are the 14th and 15th
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
