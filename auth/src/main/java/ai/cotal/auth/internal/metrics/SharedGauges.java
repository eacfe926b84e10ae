package ai.cotal.auth.internal.metrics;

import ai.cotal.auth.PlaneHealth;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The gauges of one registry, shared by every plane, callout and face that reports into it
 * (SPEC §13.21): a registry keeps the first gauge of a name and tags and ignores later ones, so
 * each meter is registered once here with a value combined over its current sources (a sum, or
 * the fullest store's reading). A source leaves when its registration closes; a function
 * counter keeps what a departed source had counted, so it never goes down. Thread-safe.
 */
final class SharedGauges {
    // the meters' sources per registry; the values never point back at their registry, so a
    // registry the embedder dropped is collected with its entry
    private static final Map<MeterRegistry, Map<String, Sources<?>>> BY_REGISTRY = new WeakHashMap<>();

    private final MeterRegistry registry;
    private final Map<String, Sources<?>> meters;

    private SharedGauges(MeterRegistry registry, Map<String, Sources<?>> meters) {
        this.registry = registry;
        this.meters = meters;
    }

    static SharedGauges of(MeterRegistry registry) {
        synchronized (BY_REGISTRY) {
            return new SharedGauges(registry, BY_REGISTRY.computeIfAbsent(registry, r -> new ConcurrentHashMap<>()));
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
    private <T> Sources<T> sources(String name, Tags tags, java.util.function.Consumer<Sources<T>> register) {
        return (Sources<T>) meters.computeIfAbsent(name + tags, k -> {
            Sources<T> made = new Sources<>();
            register.accept(made);
            return made;
        });
    }

    /** Adds {@code source} to the gauge {@code name, tags}, whose value is the sum over its sources. */
    AuthMetrics.Registration sum(String name, Tags tags, String unit, DoubleSupplier source) {
        Sources<DoubleSupplier> sum = sources(name, tags, made -> Gauge.builder(name, made,
                s -> s.current.stream().mapToDouble(SharedGauges::read).sum()).tags(tags).baseUnit(unit)
                .strongReference(true).register(registry));
        sum.current.add(source);
        return () -> sum.current.remove(source);
    }

    /**
     * Adds {@code source} to the gauge {@code name, tags}, whose value is {@code value} of the
     * fullest reading among its sources (highest fill; 0 when none has one).
     */
    AuthMetrics.Registration fullest(String name, Tags tags, String unit, Supplier<PlaneHealth.StoreFill> source,
            ToDoubleFunction<PlaneHealth.StoreFill> value) {
        Sources<Supplier<PlaneHealth.StoreFill>> fills = sources(name, tags, made -> Gauge.builder(name, made,
                s -> s.current.stream().map(SharedGauges::reading).filter(java.util.Objects::nonNull)
                        .max(java.util.Comparator.comparingDouble(PlaneHealth.StoreFill::fill)).map(value::applyAsDouble)
                        .orElse(0.0)).tags(tags).baseUnit(unit).strongReference(true).register(registry));
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
    AuthMetrics.Registration counter(String name, Tags tags, DoubleSupplier source) {
        Sources<DoubleSupplier> total = sources(name, tags, made -> FunctionCounter.builder(name, made, s -> {
            synchronized (s) {
                return s.retired + s.current.stream().mapToDouble(SharedGauges::read).sum();
            }
        }).tags(tags).register(registry));
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
