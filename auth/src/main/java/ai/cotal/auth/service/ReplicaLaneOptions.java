package ai.cotal.auth.service;

import ai.cotal.auth.metrics.MeterSink;
import ai.cotal.core.CotalException;
import java.time.Duration;
import java.util.function.BiConsumer;

/**
 * What the {@link ReplicaLanes} of a {@link CalloutReplica} or a {@link CalloutHost} run with, on
 * top of {@link HostOptions}: the standing credentials' lifetime ({@code ttl}, default 15 min), the
 * retry interval of a refused space ({@code retry}, default 5 s), a listener hearing every
 * refusal (space, reason) and an optional meter sink every lane's callout reports into
 * (SPEC §13.21, tagged with its space). Only this package's options extend it. Immutable.
 */
public abstract class ReplicaLaneOptions extends HostOptions {
    private final Duration ttl;
    private final Duration retry;
    private final BiConsumer<String, String> onRefusal;
    private final MeterSink meterSink;

    ReplicaLaneOptions(Builder<?> b) {
        super(b);
        this.meterSink = b.meterSink;
        this.ttl = b.ttl;
        this.retry = b.retry;
        this.onRefusal = b.onRefusal;
    }

    /** The standing credentials' lifetime. */
    public Duration ttl() {
        return ttl;
    }

    /** How often a refused space is tried again. */
    public Duration retry() {
        return retry;
    }

    /** The listener that hears every refusal (space, reason). */
    public BiConsumer<String, String> onRefusal() {
        return onRefusal;
    }

    /** The lanes these options describe, none started yet. */
    ReplicaLanes newLanes() {
        return new ReplicaLanes(servers(), store(), ttl, retry, clock(), onRefusal, meterSink);
    }

    /**
     * The lane half of the replicas' builders. Not thread-safe.
     *
     * @param <B> the concrete builder
     */
    public abstract static class Builder<B extends Builder<B>> extends HostOptions.Builder<B> {
        Duration ttl = Duration.ofMinutes(15);
        Duration retry = Duration.ofSeconds(5);
        BiConsumer<String, String> onRefusal = (space, why) -> { };
        MeterSink meterSink;

        Builder() {
        }

        /**
         * Reports every lane's callout answers, refusals and durations to {@code sink} (the
         * meters of SPEC §13.21, each tagged {@code space}); null: nothing is measured.
         */
        public B meterSink(MeterSink sink) {
            this.meterSink = sink;
            return self();
        }

        /** The standing credentials' lifetime (positive; default 15 min). */
        public B ttl(Duration ttl) {
            this.ttl = ttl;
            return self();
        }

        /** How often a refused space is tried again (positive; default 5 s). */
        public B retry(Duration every) {
            this.retry = every;
            return self();
        }

        /** Hears every refusal (space, reason); it must not block. */
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
