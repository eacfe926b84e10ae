package ai.cotal.auth.internal.flow;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fixed set of worker threads fed from lanes, each lane a {@link FairQueue} keyed by the
 * item's source: a free worker takes from the first lane that has an item and room in its share
 * ({@link Lane#maxBusy}: at most that many workers on the lane's items at once), so a lane of
 * lesser items can use only its share of the workers and its own bound of memory, and within a
 * lane each source waits only behind its own items and one item of each other source. An item
 * pushed out of a full lane goes to {@code overflow} (on the offering thread); a taken one to
 * {@code work} (on a worker; a {@code RuntimeException} it throws is logged and the worker goes on).
 * Thread-safe.
 */
public final class FairWorkers<T> {
    private static final Logger LOG = LoggerFactory.getLogger(FairWorkers.class);

    /** A lane: its bound of waiting items, its order within a source, and its share of the workers. */
    public record Lane(int capacity, boolean newestFirst, int maxBusy) {
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition ready = lock.newCondition();
    private final List<Lane> lanes;
    private final List<FairQueue<String, T>> queues = new ArrayList<>();
    private final int[] busy;
    private final Consumer<T> work;
    private final Consumer<T> overflow;
    private final List<Thread> threads = new ArrayList<>();
    private boolean closed;

    /** Starts {@code workers} daemon threads named {@code threadName}; lanes are in priority order. */
    public FairWorkers(String threadName, int workers, List<Lane> lanes, Consumer<T> work, Consumer<T> overflow) {
        this.lanes = List.copyOf(lanes);
        this.lanes.forEach(lane -> queues.add(new FairQueue<>(lane.capacity(), lane.newestFirst())));
        this.busy = new int[lanes.size()];
        this.work = work;
        this.overflow = overflow;
        for (int i = 0; i < workers; i++) {
            Thread thread = new Thread(this::run, threadName);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
    }

    /** Queues {@code item} from {@code source} in lane {@code lane} (its index); ignored once closed. */
    public void offer(int lane, String source, T item) {
        T dropped;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            dropped = queues.get(lane).add(source, item);
            ready.signal();
        } finally {
            lock.unlock();
        }
        if (dropped != null) {
            overflow.accept(dropped);
        }
    }

    private void run() {
        while (true) {
            T next = null;
            int lane = 0;
            lock.lock();
            try {
                while (next == null) {
                    if (closed) {
                        return;
                    }
                    for (lane = 0; lane < queues.size(); lane++) {
                        if (busy[lane] < lanes.get(lane).maxBusy() && (next = queues.get(lane).take()) != null) {
                            busy[lane]++;
                            break;
                        }
                    }
                    if (next == null) {
                        ready.await();
                    }
                }
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
            try {
                work.accept(next);
            } catch (RuntimeException e) { // the worker goes on: a lost worker would shrink the pool for good
                LOG.error("a worker's item failed unexpectedly", e);
            } finally {
                lock.lock();
                try {
                    busy[lane]--;
                    ready.signal(); // an item of this lane may be waiting for the share
                } finally {
                    lock.unlock();
                }
            }
        }
    }

    /** Stops the workers once their current items are done; what waits is not worked on. */
    public void close() {
        lock.lock();
        try {
            closed = true;
            queues.forEach(FairQueue::clear);
            ready.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** As {@link #close()}, and interrupts the items being worked on. */
    public void closeNow() {
        close();
        threads.forEach(Thread::interrupt);
    }
}
