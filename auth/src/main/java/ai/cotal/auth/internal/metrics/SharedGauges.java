package ai.cotal.auth.internal.metrics;

import ai.cotal.auth.PlaneHealth;
import ai.cotal.auth.metrics.MeterSink;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The gauges of one sink, shared by every plane, callout and face that reports into it
 * (SPEC §13.21): each meter is registered with the sink once, with a value combined over its
 * current sources (a sum, or the fullest store's reading). A source leaves when its registration
 * closes; a function counter keeps what a departed source had counted, so it never goes down.
 * A sink that throws at registration leaves that meter unregistered; the sources still come and
 * go. Thread-safe.
 */
final class SharedGauges {
    // the meters' sources per sink; the values never point back at their sink, so a sink the
    // embedder dropped is collected with its entry
    private static final Map<MeterSink, Map<String, Sources<?>>> BY_SINK = new WeakHashMap<>();

    private final MeterSink sink;
    private final Map<String, Sources<?>> meters;

    private SharedGauges(MeterSink sink, Map<String, Sources<?>> meters) {
        this.sink = sink;
        this.meters = meters;
    }

    static SharedGauges of(MeterSink sink) {
        synchronized (BY_SINK) {
            return new SharedGauges(sink, BY_SINK.computeIfAbsent(sink, s -> new ConcurrentHashMap<>()));
        }
    }

    /** The current sources of one meter; {@code retired} is what departed counter sources had counted. */
    private static final class Sources<T> {
        final List<T> current = new CopyOnWriteArrayList<>();
        double retired;
    }

    private static double read(DoubleSupplier source) {
        try {
            return source.getAsDouble();
        } catch (RuntimeException e) {
            return 0; // a source that cannot answer counts nothing
        }
    }

    @SuppressWarnings("unchecked")
    private <T> Sources<T> sources(String name, Map<String, String> tags, Consumer<Sources<T>> register) {
        return (Sources<T>) meters.computeIfAbsent(name + tags, k -> {
            Sources<T> made = new Sources<>();
            try {
                register.accept(made);
            } catch (RuntimeException e) {
                // a sink that refuses the meter never fails the plane, callout or face it measures
            }
            return made;
        });
    }

    /** Adds {@code source} to the gauge {@code name, tags}, whose value is the sum over its sources. */
    AuthMetrics.Registration sum(String name, Map<String, String> tags, String unit, DoubleSupplier source) {
        Sources<DoubleSupplier> sum = sources(name, tags, made -> sink.gauge(name, tags, unit,
                () -> made.current.stream().mapToDouble(SharedGauges::read).sum()));
        sum.current.add(source);
        return () -> sum.current.remove(source);
    }

    /**
     * Adds {@code source} to the gauge {@code name, tags}, whose value is {@code value} of the
     * fullest reading among its sources (highest fill; 0 when none has one).
     */
    AuthMetrics.Registration fullest(String name, Map<String, String> tags, String unit,
            Supplier<PlaneHealth.StoreFill> source, ToDoubleFunction<PlaneHealth.StoreFill> value) {
        Sources<Supplier<PlaneHealth.StoreFill>> fills = sources(name, tags, made -> sink.gauge(name, tags, unit,
                () -> made.current.stream().map(SharedGauges::reading).filter(Objects::nonNull)
                        .max(Comparator.comparingDouble(PlaneHealth.StoreFill::fill)).map(value::applyAsDouble)
                        .orElse(0.0)));
        fills.current.add(source);
        return () -> fills.current.remove(source);
    }

    private static PlaneHealth.StoreFill reading(Supplier<PlaneHealth.StoreFill> source) {
        try {
            return source.get();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Adds {@code source} to the function counter {@code name, tags}: the sum over its sources, past ones included. */
    AuthMetrics.Registration counter(String name, Map<String, String> tags, DoubleSupplier source) {
        Sources<DoubleSupplier> total = sources(name, tags, made -> sink.functionCounter(name, tags, () -> {
            synchronized (made) {
                return made.retired + made.current.stream().mapToDouble(SharedGauges::read).sum();
            }
        }));
        total.current.add(source);
        return () -> {
            synchronized (total) {
                if (total.current.remove(source)) {
                    total.retired += read(source);
                }
            }
        };
    }
}
