package ai.cotal.auth.internal.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** The fair queue: round-robin over sources, its order within one, and who loses a place when full. */
class FairQueueTest {
    @Test
    void eachSourceWaitsBehindOneItemOfEachOtherSourceOnly() {
        FairQueue<String, String> queue = new FairQueue<>(100, false);
        for (int i = 0; i < 50; i++) {
            queue.add("flooder", "f" + i);
        }
        queue.add("victim", "v");
        assertEquals("f0", queue.take());
        assertEquals("v", queue.take());
        assertEquals("f1", queue.take());
        assertEquals(48, queue.size());
    }

    @Test
    void newestFirstServesASourcesLatestItem() {
        FairQueue<String, String> queue = new FairQueue<>(10, true);
        queue.add("a", "a1");
        queue.add("a", "a2");
        queue.add("b", "b1");
        assertEquals("a2", queue.take());
        assertEquals("b1", queue.take());
        assertEquals("a1", queue.take());
        assertNull(queue.take());
    }

    @Test
    void fullTheBusiestSourceLosesItsOldest() {
        FairQueue<String, String> queue = new FairQueue<>(3, false);
        assertNull(queue.add("flooder", "f0"));
        assertNull(queue.add("flooder", "f1"));
        assertNull(queue.add("victim", "v0"));
        assertEquals("f0", queue.add("victim", "v1"));
        assertEquals("v0", queue.add("flooder", "f2")); // the victim holds the most now
        assertEquals(3, queue.size());
        assertEquals("f1", queue.take());
        assertEquals("v1", queue.take());
        assertEquals("f2", queue.take());
    }
}
