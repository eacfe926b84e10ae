package ai.cotal.auth.micrometer;

import ai.cotal.auth.metrics.MeterSink;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;

/**
 * The {@link MeterSink} on a Micrometer {@link MeterRegistry} (SPEC §13.21): counters, timers
 * (percentiles 0.5, 0.95 and 0.99 and a histogram from 1 ms to 10 s), gauges and function
 * counters registered in the embedder's registry. This package is the only part of the SDK that
 * names a Micrometer type: an embedder that uses it brings {@code io.micrometer:micrometer-core}
 * (and, on the module path, {@code requires micrometer.core}); one that does not needs no
 * Micrometer at all.
 *
 * <p>{@link #of} gives one sink per registry, so every plane, callout and face reporting into a
 * registry shares its gauges. The sink does not keep the registry alive: once the embedder drops
 * it, the sink records nothing. Thread-safe.
 */
@SuppressWarnings("exports") // of() names MeterRegistry: its caller reads micrometer.core itself
public final class MicrometerSink implements MeterSink {
    private static final double[] PERCENTILES = {0.5, 0.95, 0.99};
    private static final Map<MeterRegistry, MicrometerSink> SINKS = new WeakHashMap<>();

    private final WeakReference<MeterRegistry> registry;
    private final String shown;

    private MicrometerSink(MeterRegistry registry) {
        this.registry = new WeakReference<>(registry);
        this.shown = "MicrometerSink[" + registry.getClass().getSimpleName() + "]";
    }

    /** The sink of {@code registry}: the same instance for the same registry. */
    public static MicrometerSink of(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        synchronized (SINKS) {
            return SINKS.computeIfAbsent(registry, MicrometerSink::new);
        }
    }

    private static Iterable<Tag> tags(Map<String, String> tags) {
        List<Tag> list = new ArrayList<>(tags.size());
        tags.forEach((k, v) -> list.add(Tag.of(k, v)));
        return Tags.of(list);
    }

    @Override
    public Counter counter(String name, Map<String, String> tags) {
        MeterRegistry r = registry.get();
        if (r == null) {
            return () -> { };
        }
        io.micrometer.core.instrument.Counter counter = io.micrometer.core.instrument.Counter.builder(name).tags(tags(tags))
                .register(r);
        return counter::increment;
    }

    @Override
    public Timer timer(String name, Map<String, String> tags) {
        MeterRegistry r = registry.get();
        if (r == null) {
            return nanos -> { };
        }
        io.micrometer.core.instrument.Timer timer = io.micrometer.core.instrument.Timer.builder(name).tags(tags(tags))
                .publishPercentiles(PERCENTILES).publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofSeconds(10)).register(r);
        return nanos -> timer.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void gauge(String name, Map<String, String> tags, String baseUnit, DoubleSupplier value) {
        MeterRegistry r = registry.get();
        if (r != null) {
            Gauge.builder(name, value, DoubleSupplier::getAsDouble).tags(tags(tags)).baseUnit(baseUnit)
                    .strongReference(true).register(r);
        }
    }

    @Override
    public void functionCounter(String name, Map<String, String> tags, DoubleSupplier total) {
        MeterRegistry r = registry.get();
        if (r != null) {
            FunctionCounter.builder(name, total, DoubleSupplier::getAsDouble).tags(tags(tags)).register(r);
        }
    }

    @Override
    public String toString() {
        return shown;
    }
}
