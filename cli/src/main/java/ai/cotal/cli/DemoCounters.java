package ai.cotal.cli;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.PrintStream;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/** The demo's last words: every counter its service produced (SPEC §13.21), and the callout's and exchange's timers. */
final class DemoCounters {
    private DemoCounters() {
    }

    static void print(PrintStream out, MeterRegistry registry) {
        Map<String, String> lines = new TreeMap<>();
        for (Meter meter : registry.getMeters()) {
            if (meter instanceof Counter counter && counter.count() > 0) {
                lines.put(id(meter), String.format("%.0f", counter.count()));
            } else if (meter instanceof Timer timer && timer.count() > 0) {
                lines.put(id(meter), String.format("%d, mean %.1f ms, max %.1f ms", timer.count(),
                        timer.mean(TimeUnit.MILLISECONDS), timer.max(TimeUnit.MILLISECONDS)));
            }
        }
        out.println();
        out.println("what the service counted:");
        lines.forEach((id, value) -> out.println("  " + id + " " + value));
    }

    private static String id(Meter meter) {
        return meter.getId().getName() + meter.getId().getTags().stream().map(t -> t.getKey() + "=" + t.getValue())
                .collect(Collectors.joining(",", "{", "}"));
    }
}
