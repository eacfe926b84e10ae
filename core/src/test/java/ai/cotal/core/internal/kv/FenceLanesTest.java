package ai.cotal.core.internal.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Fence lanes and rows (SPEC §13.13 "Fence rows and lanes") without a broker. */
class FenceLanesTest {
    private static final long[] REVISIONS = {11, 12, 13, 14, 15, 16, 17, 18};

    private static FenceLanes lanes(Runnable onLost) {
        return new FenceLanes("b", 3, REVISIONS, Duration.ofMillis(200), Duration.ofMillis(600), onLost);
    }

    @Test
    void eightLanesAreLentOnceEachAndANinthBorrowIsUnavailableAfterItsWait() {
        FenceLanes lanes = lanes(null);
        Set<Integer> lent = new HashSet<>();
        for (int i = 0; i < FenceRows.LANES; i++) {
            FenceLanes.Lane lane = lanes.borrow();
            assertEquals(REVISIONS[lane.k()], lane.revision(), "a lane carries its fence row's revision");
            lent.add(lane.k());
        }
        assertEquals(FenceRows.LANES, lent.size(), "no lane is lent twice");
        long start = System.nanoTime();
        CotalException none = assertThrows(CotalException.class, lanes::borrow);
        assertEquals(ErrorCode.UNAVAILABLE, none.code());
        assertTrue(System.nanoTime() - start >= Duration.ofMillis(200).toNanos(), "it waited its borrow wait");
    }

    @Test
    void anAnsweredLaneIsFreeAtOnceAndAnUnansweredOneRests() {
        FenceLanes lanes = lanes(null);
        FenceLanes.Lane[] all = new FenceLanes.Lane[FenceRows.LANES];
        for (int i = 0; i < all.length; i++) {
            all[i] = lanes.borrow();
        }
        lanes.giveBack(all[0], true);
        assertEquals(all[0].k(), lanes.borrow().k(), "given back answered: free at once");
        lanes.giveBack(all[1], false);
        assertThrows(CotalException.class, lanes::borrow, "resting (600 ms) longer than the borrow wait (200 ms)");
        long start = System.nanoTime();
        FenceLanes.Lane rested = null;
        while (rested == null && System.nanoTime() - start < Duration.ofSeconds(5).toNanos()) {
            try {
                rested = lanes.borrow();
            } catch (CotalException e) {
                assertEquals(ErrorCode.UNAVAILABLE, e.code());
            }
        }
        assertEquals(all[1].k(), rested.k(), "the rested lane is lent again once its rest is over");
        assertTrue(System.nanoTime() - start >= Duration.ofMillis(300).toNanos());
    }

    @Test
    void aBorrowAvoidingALaneGetsAnother() {
        FenceLanes lanes = lanes(null);
        FenceLanes.Lane first = lanes.borrow();
        lanes.giveBack(first, true);
        for (int i = 0; i < 20; i++) {
            FenceLanes.Lane other = lanes.borrow(first.k());
            assertNotEquals(first.k(), other.k());
            lanes.giveBack(other, true);
        }
    }

    @Test
    void lostLanesRefuseEveryBorrowAndTellTheListenerOnce() {
        AtomicInteger told = new AtomicInteger();
        FenceLanes lanes = lanes(told::incrementAndGet);
        lanes.lose();
        lanes.lose();
        assertEquals(1, told.get());
        assertTrue(lanes.lost());
        assertEquals(ErrorCode.UNAVAILABLE, assertThrows(CotalException.class, lanes::borrow).code());
    }

    @Test
    void fenceAndWitnessRowsAreClosed() {
        byte[] fence = FenceRows.write(FenceRows.Fence.of(4, "UCLAIM"));
        assertEquals("{\"v\":1,\"generation\":4,\"claimId\":\"UCLAIM\"}", new String(fence, StandardCharsets.UTF_8));
        assertEquals(FenceRows.Fence.of(4, "UCLAIM"), FenceRows.fence("b", "plane.fence.0", fence));
        assertEquals(FenceRows.Witness.of(4), FenceRows.witness("b", "plane.witness.0",
                FenceRows.write(FenceRows.Witness.of(4))));
        for (String bad : new String[] {"{\"v\":2,\"generation\":4,\"claimId\":\"U\"}",
                "{\"v\":1,\"generation\":0,\"claimId\":\"U\"}", "{\"v\":1,\"generation\":4}",
                "{\"v\":1,\"generation\":4,\"claimId\":\"U\",\"extra\":1}", "{\"v\":1,\"generation\":\"4\",\"claimId\":\"U\"}",
                "{\"v\":1,\"generation\":4,\"claimId\":\"" + "U".repeat(129) + "\"}"}) {
            CotalException e = assertThrows(CotalException.class,
                    () -> FenceRows.fence("b", "plane.fence.0", bad.getBytes(StandardCharsets.UTF_8)), bad);
            assertEquals(ErrorCode.DATA_LOSS, e.code(), bad);
            assertTrue(e.getMessage().contains("plane.fence.0"), e.getMessage());
        }
        assertThrows(CotalException.class, () -> FenceRows.witness("b", "plane.witness.0",
                "{\"v\":1,\"generation\":4,\"claimId\":\"U\"}".getBytes(StandardCharsets.UTF_8)));
        assertThrows(IllegalArgumentException.class, () -> FenceRows.fenceKey(8));
    }
}
