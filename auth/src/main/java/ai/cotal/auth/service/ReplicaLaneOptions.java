package ai.cotal.auth.service;

import ai.cotal.core.CotalException;
import java.time.Duration;
import java.util.function.BiConsumer;

/**
 * What the {@link ReplicaLanes} of a {@link CalloutReplica} or a {@link CalloutHost} run with, on
 * top of {@link HostOptions}: the standing credentials' lifetime ({@code ttl}, default 15 min), the
 * retry interval of a refused space ({@code retry}, default 5 s), a listener hearing every
 * refusal (space, reason) and an optional Micrometer registry every lane's callout records into
 * (SPEC §13.21, tagged with its space). Immutable.
 */
abstract class ReplicaLaneOptions extends HostOptions {
    private final Duration ttl;
    private final Duration retry;
    private final BiConsumer<String, String> onRefusal;
    private final Object meterRegistry; // a MeterRegistry: typed only at the setter (Micrometer is optional)

    ReplicaLaneOptions(Builder<?> b) {
        super(b);
        this.meterRegistry = b.meterRegistry;
        this.ttl = b.ttl;
        this.retry = b.retry;
        this.onRefusal = b.onRefusal;
    }

    public Duration ttl() {
        return ttl;
    }

    public Duration retry() {
        return retry;
    }

    public BiConsumer<String, String> onRefusal() {
        return onRefusal;
    }

    /** The lanes these options describe, none started yet. */
    ReplicaLanes newLanes() {
        return new ReplicaLanes(servers(), store(), ttl, retry, clock(), onRefusal, meterRegistry);
    }

    /** The lane half of the replicas' builders. */
    abstract static class Builder<B extends Builder<B>> extends HostOptions.Builder<B> {
        Duration ttl = Duration.ofMinutes(15);
        Duration retry = Duration.ofSeconds(5);
        BiConsumer<String, String> onRefusal = (space, why) -> { };
        Object meterRegistry;

        Builder() {
        }

        /**
         * Records every lane's callout answers, refusals and durations into {@code registry}
         * (the metrics of SPEC §13.21, each tagged {@code space}); null: no metrics.
         */
        public B meterRegistry(io.micrometer.core.instrument.MeterRegistry registry) {
            this.meterRegistry = registry;
            return self();
        }

        public B ttl(Duration ttl) {
            this.ttl = ttl;
            return self();
        }

        public B retry(Duration every) {
            this.retry = every;
            return self();
        }

        public B onRefusal(BiConsumer<String, String> listener) {
            this.onRefusal = listener;
            return self();
        }

        /** Checks {@code ttl}, {@code retry}, {@code clock} and {@code onRefusal}, in that order. */
        final void checkLanes() {
            if (ttl == null || ttl.isNegative() || ttl.isZero()) {
                throw CotalException.badRequest("ttl", "must be positive");
            }
            if (retry == null || retry.isNegative() || retry.isZero()) {
                throw CotalException.badRequest("retry", "must be positive");
            }
            checkClock();
            if (onRefusal == null) {
                throw CotalException.badRequest("onRefusal", "is required");
            }
        }
    }
}
