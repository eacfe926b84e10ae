package ai.cotal.auth.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RollingWindowTest {
    private final AtomicLong millis = new AtomicLong(1_000_000);
    private final Clock clock = new ai.cotal.auth.TestClock(millis::get);

    @Test
    void overTheLimitInsideTheWindowOnlyAndAFloodHoldsNoMoreThanTheLimit() {
        RollingWindow window = new RollingWindow(3, Duration.ofMinutes(1), clock);
        assertFalse(window.record());
        assertFalse(window.record());
        assertFalse(window.record());
        assertTrue(window.record(), "the fourth event in a minute is over a limit of three");
        for (int i = 0; i < 100_000; i++) {
            millis.addAndGet(1);
            assertTrue(window.record());
        }
        assertEquals(4, window.held(), "a flood keeps only limit + 1 timestamps");
        millis.addAndGet(60_000);
        assertFalse(window.record(), "a minute later the window is empty again");
        assertEquals(1, window.held());
    }

    @Test
    void refillInIsTheTimeUntilTheOldestEventThatCountsLeavesTheWindow() {
        RollingWindow window = new RollingWindow(2, Duration.ofMinutes(1), clock);
        assertEquals(Duration.ZERO, window.refillIn(), "not full");
        window.record();
        millis.addAndGet(20_000);
        window.record();
        millis.addAndGet(5_000);
        assertTrue(window.full());
        assertEquals(Duration.ofSeconds(35), window.refillIn(), "the first event leaves 60 s after it came");
        millis.addAndGet(35_000);
        assertFalse(window.full());
        assertEquals(Duration.ZERO, window.refillIn());
        window.record(); // full again: the event at 20 s is now the oldest that counts
        assertEquals(Duration.ofSeconds(20), window.refillIn());
    }
}
