package ai.cotal.auth.internal.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The workers: a lane's share holds while its items block, the other lane goes on, a failing item costs no worker. */
class FairWorkersTest {
    @Test
    void aLaneAtItsShareLeavesTheOtherWorkersToTheOtherLane() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch restStarted = new CountDownLatch(1);
        CountDownLatch firstDone = new CountDownLatch(3);
        ConcurrentLinkedQueue<String> worked = new ConcurrentLinkedQueue<>();
        FairWorkers<String> workers = new FairWorkers<>("test", 2, List.of(new FairWorkers.Lane(8, false, 2),
                new FairWorkers.Lane(8, false, 1)), item -> {
                    if (item.startsWith("rest")) {
                        restStarted.countDown();
                        try {
                            release.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    if (item.equals("first-fails")) {
                        throw new IllegalStateException("this item fails");
                    }
                    worked.add(item);
                    firstDone.countDown();
                }, dropped -> { });
        try {
            workers.offer(1, "flooder", "rest-1");
            workers.offer(1, "flooder", "rest-2"); // waits: its lane's one worker is busy
            assertTrue(restStarted.await(10, TimeUnit.SECONDS));
            workers.offer(0, "victim", "first-fails");
            workers.offer(0, "victim", "first-1");
            workers.offer(0, "victim", "first-2");
            workers.offer(0, "victim", "first-3");
            assertTrue(firstDone.await(10, TimeUnit.SECONDS), "the other worker answered the first lane: " + worked);
            assertEquals(List.of("first-1", "first-2", "first-3"), List.copyOf(worked));
        } finally {
            release.countDown();
            workers.closeNow();
        }
    }
}
