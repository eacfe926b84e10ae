package ai.cotal.auth.internal.plane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The budget's counting rules (SPEC §13.20); the broker tests show the refusals end to end. */
class WriteBudgetTest {
    private final AtomicLong now = new AtomicLong(1_000_000);
    private final Clock clock = new ai.cotal.auth.TestClock(now::get);

    private WriteBudget budget(int perPrincipal, int perSpace) {
        return new WriteBudget(new ai.cotal.auth.WriteBudgets(perPrincipal, perSpace, perPrincipal, perSpace,
                perPrincipal, perSpace), clock, null, Map.of());
    }

    @Test
    void refusedAttemptsSpendNothingAndTheWindowRolls() {
        WriteBudget budget = budget(2, 3);
        budget.charge(WriteBudget.Kind.MINT, "u_a", "x");
        budget.charge(WriteBudget.Kind.MINT, "u_a", "x");
        for (int i = 0; i < 100; i++) {
            assertEquals(ErrorCode.RESOURCE_EXHAUSTED, assertThrows(CotalException.class,
                    () -> budget.charge(WriteBudget.Kind.MINT, "u_a", "x")).code());
        }
        budget.charge(WriteBudget.Kind.MINT, "u_b", "x"); // the flooder's refusals did not spend the space's budget
        budget.charge(WriteBudget.Kind.ISSUANCE, "u_b", "x"); // kinds are counted apart
        budget.charge(WriteBudget.Kind.ENDPOINT, "u_b", "x");
        CotalException space = assertThrows(CotalException.class, () -> budget.charge(WriteBudget.Kind.MINT, "u_c", "x"));
        assertTrue(space.getMessage().contains("limit 3 per space per minute"), space.getMessage());
        now.addAndGet(60_000); // a minute later the windows are empty again
        budget.charge(WriteBudget.Kind.MINT, "u_a", "x");
        budget.charge(WriteBudget.Kind.MINT, "u_c", "x");
    }

    @Test
    void principalWindowsAreAnLruOfBoundedSize() {
        WriteBudget budget = budget(1, 1_000_000);
        for (int i = 0; i < WriteBudget.MAX_PRINCIPALS + 500; i++) {
            budget.charge(WriteBudget.Kind.MINT, "u_" + i, "x");
        }
        assertEquals(WriteBudget.MAX_PRINCIPALS, budget.principalsHeld());
        // the oldest principal was evicted: its window starts afresh
        budget.charge(WriteBudget.Kind.MINT, "u_0", "x");
        // a recent one is still held and refused
        assertThrows(CotalException.class, () -> budget.charge(WriteBudget.Kind.MINT, "u_" + (WriteBudget.MAX_PRINCIPALS + 499),
                "x"));
    }
}
