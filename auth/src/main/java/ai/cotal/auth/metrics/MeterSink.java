package ai.cotal.auth.metrics;

import java.util.Map;
import java.util.function.DoubleSupplier;

/**
 * Where the plane, its callout and its HTTP faces report what they measure (SPEC §13.21): the
 * SDK names each meter and its tags, and a sink keeps them in a metrics library of the
 * embedder's choice. {@code ai.cotal.auth.micrometer.MicrometerSink} is the stock sink on a
 * Micrometer {@code MeterRegistry}; without a sink nothing is measured and no metrics library is
 * needed, on the class path or the module path.
 *
 * <p>Names are dotted lower case ({@code cotal.auth.callout.decisions}); tag keys and values are
 * fixed words from closed sets, never an id, a token or a path; the map passed is the meter's
 * whole tag set and is not modified afterwards. The SDK asks for each counter and timer once per
 * tag set and keeps the handle; it registers each gauge and function counter once per name and
 * tag set for the sink's lifetime, however many planes, callouts and faces report into the sink
 * (it combines their readings itself), so one backend is given to every plane through one sink
 * instance. The suppliers passed never throw and never block.
 *
 * <p>Implementations are thread-safe; a method that throws is ignored by the SDK (measuring never
 * fails what it measures), and so is a handle whose record or increment throws.
 */
public interface MeterSink {
    /** A monotonic count. Thread-safe. */
    interface Counter {
        /** Adds one. */
        void increment();
    }

    /** A latency distribution. Thread-safe. */
    interface Timer {
        /** Records one event that took {@code nanos} nanoseconds. */
        void record(long nanos);
    }

    /** The counter {@code name} with {@code tags}. */
    Counter counter(String name, Map<String, String> tags);

    /**
     * The timer {@code name} with {@code tags}: latencies from under a millisecond to seconds,
     * watched at their median and upper percentiles (SPEC §13.21 names which).
     */
    Timer timer(String name, Map<String, String> tags);

    /**
     * A gauge {@code name} with {@code tags} whose current value {@code value} gives whenever the
     * sink reads it; {@code baseUnit} is {@code bytes} or null (a count or a ratio).
     */
    void gauge(String name, Map<String, String> tags, String baseUnit, DoubleSupplier value);

    /** A counter {@code name} with {@code tags} whose running total {@code total} gives (it never decreases). */
    void functionCounter(String name, Map<String, String> tags, DoubleSupplier total);
}
