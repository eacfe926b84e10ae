package ai.cotal.auth.internal.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.cotal.auth.metrics.MeterSink;
import ai.cotal.auth.micrometer.MicrometerSink;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.DoubleSupplier;
import org.junit.jupiter.api.Test;

/**
 * The recorder on a meter sink (SPEC §13.21): what reaches Micrometer through the stock sink,
 * gauges shared by every source of one registry however its sink was obtained, and a sink that
 * throws never failing the path it measures.
 */
class SinkMetricsTest {
    @Test
    void countersTimersAndGaugesReachTheRegistryWithTheirClosedTags() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        AuthMetrics metrics = AuthMetrics.of(MicrometerSink.of(registry), true, "alpha");
        metrics.calloutDecision(AuthMetrics.CalloutOutcome.REFUSED, AuthMetrics.CalloutReason.NO_BEARER,
                ErrorCode.PERMISSION_DENIED, 2_000_000);
        metrics.calloutDecision(AuthMetrics.CalloutOutcome.REFUSED, AuthMetrics.CalloutReason.NO_BEARER,
                ErrorCode.PERMISSION_DENIED, 4_000_000);
        AtomicLong cuts = new AtomicLong(3);
        AuthMetrics.Registration face = metrics.faceGauges(AuthMetrics.Face.PUBLIC, () -> 2, () -> 1, cuts::get, () -> 0);

        assertEquals(2, registry.get("cotal.auth.callout.decisions").tags("space", "alpha", "outcome", "refused", "reason",
                "no-bearer", "code", "permission-denied").counter().count());
        assertEquals(2, registry.get("cotal.auth.callout.latency").tags("space", "alpha", "outcome", "refused").timer()
                .count());
        assertEquals(2, registry.get("cotal.auth.http.connections").tags("space", "alpha", "face", "public").gauge()
                .value());
        assertEquals(3, registry.get("cotal.auth.http.connections.cut").tags("face", "public", "cause", "peer-cap")
                .functionCounter().count());
        face.close();
        assertEquals(0, registry.get("cotal.auth.http.connections").tags("face", "public").gauge().value(),
                "a closed source leaves the gauge");
        assertEquals(3, registry.get("cotal.auth.http.connections.cut").tags("face", "public", "cause", "peer-cap")
                .functionCounter().count(), "a function counter keeps what a departed source counted");
    }

    @Test
    void everySourceOfOneRegistryAddsToItsGauges() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        assertSame(MicrometerSink.of(registry), MicrometerSink.of(registry), "one sink per registry");
        AuthMetrics.Registration first = AuthMetrics.of(MicrometerSink.of(registry), false, "alpha").calloutGauges(() -> true);
        AuthMetrics.Registration second = AuthMetrics.of(MicrometerSink.of(registry), false, "beta").calloutGauges(() -> true);
        assertEquals(2, registry.get("cotal.auth.callout.answering").gauge().value());
        first.close();
        assertEquals(1, registry.get("cotal.auth.callout.answering").gauge().value());
        second.close();
        assertEquals(0, registry.get("cotal.auth.callout.answering").gauge().value());
    }

    @Test
    void aSinkThatThrowsNeverFailsWhatItMeasures() {
        MeterSink broken = new MeterSink() {
            @Override
            public Counter counter(String name, Map<String, String> tags) {
                throw new IllegalStateException("closed");
            }

            @Override
            public Timer timer(String name, Map<String, String> tags) {
                return nanos -> {
                    throw new IllegalStateException("closed");
                };
            }

            @Override
            public void gauge(String name, Map<String, String> tags, String baseUnit, DoubleSupplier value) {
                throw new IllegalStateException("closed");
            }

            @Override
            public void functionCounter(String name, Map<String, String> tags, DoubleSupplier total) {
                throw new IllegalStateException("closed");
            }
        };
        AuthMetrics metrics = AuthMetrics.of(broken, false, "alpha");
        metrics.calloutDecision(AuthMetrics.CalloutOutcome.ADMITTED, AuthMetrics.CalloutReason.ADMITTED, null, 1);
        metrics.turnover("auth-mint");
        metrics.faceGauges(AuthMetrics.Face.LOOPBACK, () -> 1, () -> 1, () -> 1, () -> 1).close();
        metrics.calloutGauges(() -> true).close();
    }

    @Test
    void theSpaceTagNeedsASink() {
        CotalException refused = assertThrows(CotalException.class, () -> AuthMetrics.of(null, true, "alpha"));
        assertEquals(ErrorCode.BAD_REQUEST, refused.code());
        assertSame(AuthMetrics.NONE, AuthMetrics.of(null, false, "alpha"));
    }
}
