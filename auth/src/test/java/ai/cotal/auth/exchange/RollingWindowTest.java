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
}
