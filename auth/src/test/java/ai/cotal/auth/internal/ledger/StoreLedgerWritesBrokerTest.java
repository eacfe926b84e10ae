package ai.cotal.auth.internal.ledger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.Grant;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.Principal;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The store ledger's writes under contention and lost answers (SPEC §13.23 "Writes"). A lost
 * answer is simulated through the ledger's package-private seam ({@code loseAnswers}): the write
 * lands on the real broker and its answer is then reported {@code unavailable}, as a turnover
 * would, so the write's read-back decides.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class StoreLedgerWritesBrokerTest {
    private static final Principal LAPTOP = Principal.of("u_abcdefghijklmnopqrstuvwxyz", "laptop");
    private static final Grant CHAT = Grant.of(List.of("chat"), List.of("general"), List.of("general"));

    private static final String KEY = "ledger." + LAPTOP;

    @Test
    void racingGrantsAndRevokesEndInOneSerialOrdersRow(NatsBrokers brokers) throws Exception {
        try (StoreLedgerBroker store = new StoreLedgerBroker(brokers)) {
            StoreActorLedger ledger = store.ledger();
            long before = store.lastSequence();
            ConcurrentLinkedQueue<ActorRow> granted = new ConcurrentLinkedQueue<>();
            AtomicInteger revokes = new AtomicInteger();
            CountDownLatch go = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(8);
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                boolean grant = i % 3 != 0;
                done.add(pool.submit(() -> {
                    go.await();
                    try {
                        if (grant) {
                            granted.add(ledger.grantActor(LAPTOP, CHAT));
                        } else {
                            ledger.revoke(LAPTOP);
                            revokes.incrementAndGet();
                        }
                    } catch (CotalException e) {
                        assertEquals(ErrorCode.UNAVAILABLE, e.code(), e.getMessage()); // moved twice by others: nothing written
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : done) {
                f.get();
            }
            pool.shutdown();
            // the auth store keeps one message per key: the stream's sequence counts the writes
            long written = store.lastSequence() - before;
            assertTrue(written >= granted.size() && written <= granted.size() + revokes.get(),
                    "every answered grant is one message, every revoke at most one: " + written);
            assertEquals(granted.size(), granted.stream().map(ActorRow::lifecycleUid).distinct().count(), "fresh uids");
            boolean lastIsRow = store.operation(KEY) == null;
            Optional<ActorRow> now = ledger.find(LAPTOP);
            if (lastIsRow) {
                ActorRow stands = now.orElseThrow();
                assertTrue(granted.contains(stands), "the row standing is one answered grant's");
            } else {
                assertEquals(Optional.empty(), now, "the last write was a revoke");
            }
        }
    }

    @Test
    void aGrantWhoseAnswerIsLostLandsOnceAndSoDoesARevoke(NatsBrokers brokers) throws Exception {
        try (StoreLedgerBroker store = new StoreLedgerBroker(brokers)) {
            StoreActorLedger ledger = store.ledger();
            AtomicInteger lost = new AtomicInteger();
            ledger.loseAnswers(key -> lost.getAndIncrement() == 0);
            long before = store.lastSequence();
            ActorRow row = ledger.grantActor(LAPTOP, CHAT);
            assertEquals(1, lost.get(), "the answer of the one write was lost");
            assertEquals(before + 1, store.lastSequence(), "the read-back saw it landed: not written again");
            assertEquals(Optional.of(row), ledger.find(LAPTOP));
            lost.set(0);
            ledger.revoke(LAPTOP);
            assertEquals(before + 2, store.lastSequence(), "one delete marker");
            assertEquals("DEL", store.operation(KEY));
            assertEquals(Optional.empty(), ledger.find(LAPTOP));
        }
    }

    @Test
    void noGrantOverwritesACorruptRowAndARevokeRemovesIt(NatsBrokers brokers) throws Exception {
        try (StoreLedgerBroker store = new StoreLedgerBroker(brokers)) {
            StoreActorLedger ledger = store.ledger();
            byte[] corrupt = "{\"ver\":2}".getBytes(StandardCharsets.UTF_8);
            store.kv.put(KEY, corrupt);
            long before = store.lastSequence();
            CotalException refused = assertThrows(CotalException.class, () -> ledger.grantActor(LAPTOP, CHAT));
            assertEquals(ErrorCode.DATA_LOSS, refused.code());
            assertTrue(refused.getMessage().endsWith(": a grant does not overwrite it (revoke it first)"), refused.getMessage());
            assertTrue(!refused.getMessage().contains("ledger." + LAPTOP), "no key path: " + refused.getMessage());
            assertEquals(before, store.lastSequence(), "nothing written");
            assertArrayEquals(corrupt, store.kv.get(KEY).getValue());
            ledger.revoke(LAPTOP);
            ActorRow row = ledger.grantActor(LAPTOP, CHAT);
            assertEquals(Optional.of(row), ledger.find(LAPTOP), "granted once the corrupt row was revoked");
        }
    }
}
