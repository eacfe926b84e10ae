package ai.cotal.auth.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The faces' bounds (SPEC §13.17): defaults, one field changed at a time, every refusal naming its field. */
class FaceLimitsTest {
    @Test
    void theDefaultsAreTheDocumentedOnes() {
        FaceLimits d = FaceLimits.DEFAULT;
        assertEquals(30, d.refusalsPerMinute());
        assertEquals(64, d.maxInFlight());
        assertEquals(Duration.ofSeconds(10), d.deadline());
        assertEquals(256, d.maxConnections());
        assertEquals(32, d.maxConnectionsPerPeer());
        assertEquals(16, d.workerThreads());
        assertEquals(Duration.ofSeconds(10), d.readDeadline());
    }

    @Test
    void eachWithChangesItsFieldAndKeepsTheOthers() {
        FaceLimits d = FaceLimits.DEFAULT;
        assertEquals(new FaceLimits(5, 64, Duration.ofSeconds(10), 256, 32, 16, Duration.ofSeconds(10)),
                d.withRefusalsPerMinute(5));
        assertEquals(new FaceLimits(30, 1, Duration.ofSeconds(10), 256, 32, 16, Duration.ofSeconds(10)), d.withMaxInFlight(1));
        assertEquals(new FaceLimits(30, 64, Duration.ofMillis(300), 256, 32, 16, Duration.ofSeconds(10)),
                d.withDeadline(Duration.ofMillis(300)));
        assertEquals(new FaceLimits(30, 64, Duration.ofSeconds(10), 6, 2, 16, Duration.ofSeconds(10)), d.withConnections(6, 2));
        assertEquals(new FaceLimits(30, 64, Duration.ofSeconds(10), 256, 32, 4, Duration.ofSeconds(10)), d.withWorkerThreads(4));
        assertEquals(new FaceLimits(30, 64, Duration.ofSeconds(10), 256, 32, 16, Duration.ofSeconds(1)),
                d.withReadDeadline(Duration.ofSeconds(1)));
        assertEquals(FaceLimits.MAX_REFUSALS_PER_MINUTE,
                d.withRefusalsPerMinute(FaceLimits.MAX_REFUSALS_PER_MINUTE).refusalsPerMinute(), "the bound itself is taken");
        assertEquals(FaceLimits.MAX_READ_DEADLINE, d.withReadDeadline(FaceLimits.MAX_READ_DEADLINE).readDeadline());
    }

    @Test
    void aBoundOutOfRangeIsRefusedNamingTheField() {
        FaceLimits d = FaceLimits.DEFAULT;
        Map<String, Supplier<FaceLimits>> bad = new LinkedHashMap<>();
        bad.put("refusalsPerMinute 0", () -> d.withRefusalsPerMinute(0));
        bad.put("refusalsPerMinute above the bound", () -> d.withRefusalsPerMinute(FaceLimits.MAX_REFUSALS_PER_MINUTE + 1));
        bad.put("refusalsPerMinute max int", () -> d.withRefusalsPerMinute(Integer.MAX_VALUE));
        bad.put("maxInFlight 0", () -> d.withMaxInFlight(0));
        bad.put("deadline zero", () -> d.withDeadline(Duration.ZERO));
        bad.put("deadline negative", () -> d.withDeadline(Duration.ofSeconds(-1)));
        bad.put("deadline null", () -> d.withDeadline(null));
        bad.put("maxConnections 0", () -> d.withConnections(0, 1));
        bad.put("maxConnections above the bound", () -> d.withConnections(FaceLimits.MAX_CONNECTIONS + 1, 1));
        bad.put("maxConnectionsPerPeer 0", () -> d.withConnections(8, 0));
        bad.put("maxConnectionsPerPeer above maxConnections", () -> d.withConnections(8, 9));
        bad.put("workerThreads below", () -> d.withWorkerThreads(FaceLimits.MIN_WORKER_THREADS - 1));
        bad.put("workerThreads above", () -> d.withWorkerThreads(FaceLimits.MAX_WORKER_THREADS + 1));
        bad.put("readDeadline short", () -> d.withReadDeadline(FaceLimits.MIN_READ_DEADLINE.minusMillis(1)));
        bad.put("readDeadline long", () -> d.withReadDeadline(FaceLimits.MAX_READ_DEADLINE.plusMillis(1)));
        bad.put("readDeadline null", () -> d.withReadDeadline(null));
        bad.forEach((why, limits) -> {
            CotalException e = assertThrows(CotalException.class, limits::get, why);
            assertEquals(ErrorCode.BAD_REQUEST, e.code(), why);
            String field = why.substring(0, why.indexOf(' '));
            assertEquals(field + ":", e.getMessage().substring(0, field.length() + 1), why + ": " + e.getMessage());
        });
    }
}
