package ai.cotal.auth.internal.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ScannerKick;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.creds.Creds;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.servicehost.HostResult.Status;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.workspace.SecretKeys;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #18 part 5: a trip while the plane closes (SPEC §13.1 "Close", §13.12 fatal latch). Both of
 * the plane's fatal paths, a scanner lost and a standing connection failing to renew, trip the
 * service-endpoint host even after {@code close()} began, without fencing the plane: a call still
 * in flight answers {@code held} {@code tripped} at its next pass and writes nothing more, and the
 * close finishes and releases the claim.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class ClosingTripBrokerTest {
    @TempDir
    Path stateDir;

    /** What trips the plane's fatal path once the plane is closing; returns nothing, the engine reports the trip. */
    @FunctionalInterface
    private interface Fault {
        void strike(EndpointFixture x) throws Exception;
    }

    /**
     * Holds a revoke at its admit step, closes the plane beside it, strikes {@code fault} once the
     * plane refuses new calls, moves the capacity so the revoke needs another pass, and lets it go.
     * Returns the trip's reason.
     */
    private static String tripWhileClosing(EndpointFixture x, Fault fault) throws Exception {
        String iid = EndpointFixture.iid();
        x.approved(x.owner, "weather", iid);
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean once = new AtomicBoolean();
        x.engine.hooks(new Hooks() {
            @Override
            public void beforeStep(String key, Plan.Tag tag, EffectConnection effect) {
                if (tag == Plan.Tag.ADMIT && once.compareAndSet(false, true)) {
                    entered.countDown();
                    try {
                        release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        });
        ExecutorService threads = Executors.newFixedThreadPool(2); // the held call and close side by side
        try {
            CompletableFuture<HostResult> call = CompletableFuture.supplyAsync(() -> x.call(x.owner,
                    new HostRequest.Revoke(EndpointFixture.rid(), "weather", iid)), threads);
            assertTrue(entered.await(10, TimeUnit.SECONDS), "the revoke bound its request and reached its admit step");
            CompletableFuture<Void> closing = CompletableFuture.runAsync(x.plane::close, threads);
            awaitRefusingNewCalls(x);
            assertFalse(x.engine.tripped().isDone(), "nothing tripped the host yet");

            fault.strike(x);
            String why = x.engine.tripped().get(20, TimeUnit.SECONDS);
            assertFalse(x.plane.fenced().isDone(), "a fault while closing does not make the plane fatal");

            String capacity = Rows.cap("weather", iid);
            x.put(capacity, x.get(capacity)); // the admit misses: the revoke's next pass meets the trip
            long afterTrip = x.lastSequence();
            release.countDown();
            HostResult held = call.get(20, TimeUnit.SECONDS);
            assertEquals(Status.HELD, held.status(), String.valueOf(held.reason()));
            assertEquals("tripped", held.reason());
            assertNotNull(held.operationId(), "the binding landed before the trip: the answer names its operation");
            closing.get(20, TimeUnit.SECONDS);
            // the close's release of the claim (it waits for the held call) is the one write after the trip
            assertEquals(afterTrip + 1, x.lastSequence(), "nothing but the claim's release was written after the trip");
            assertTrue(x.admin.jetStreamManagement().getMessage("KV_" + x.bucket, afterTrip + 1).getSubject()
                    .endsWith(".plane"), "the one write after the trip is the claim's release");
            assertFalse(x.plane.fenced().isDone(), "the plane closed without fencing");
            String row = new String(x.admin.keyValue(x.bucket).get("plane").getValue(), StandardCharsets.UTF_8);
            assertTrue(row.contains("\"state\":\"released\""), "the close released the claim: " + row);
            return why;
        } finally {
            release.countDown();
            threads.shutdownNow();
        }
    }

    /** close() refuses new host calls from the moment it is called: wait for the first refusal. */
    private static void awaitRefusingNewCalls(EndpointFixture x) {
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            assertTrue(System.nanoTime() - giveUp < 0, "close never started refusing new calls");
            try {
                x.call(x.owner, new HostRequest.NameRead("forecast"));
                Thread.onSpinWait();
            } catch (CotalException e) {
                assertEquals(ErrorCode.UNAVAILABLE, e.code());
                return;
            }
        }
    }

    @Test
    void aScannerLostWhileThePlaneClosesTripsTheHost(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            String why = tripWhileClosing(x, f -> ScannerKick.kick(f.nats, f.f.space.accountPublicKey(),
                    ScannerKick.ledgerScanner("alpha"), Creds.parse(f.f.store.getText(
                            SecretKeys.membershipObserverCredsKey("alpha")).orElseThrow()), f.f.evictor));
            assertTrue(why.contains("auth-scan"), why);
        }
    }

    /**
     * The space's signer, refusing the writer's next JWT once armed (its next renewal). The writer
     * is the one to fail because the close releases the claim on the barrier and the reader.
     */
    private static ai.cotal.core.trust.SpaceSigner failingWriterRenewal(ai.cotal.core.trust.SpaceSigner signer,
            AtomicBoolean armed) {
        return RefusingSigner.refusing(signer, ai.cotal.auth.internal.connect.AuthorityRole.WRITER,
                () -> armed.compareAndSet(true, false));
    }

    @Test
    void aRenewalFailureWhileThePlaneClosesTripsTheHost(NatsBrokers brokers) throws Exception {
        AtomicBoolean armed = new AtomicBoolean();
        // the options as the fixture made them, with their signer wrapped
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir, b -> b.signer(failingWriterRenewal(
                b.build().signer(), armed)).standingTtl(Duration.ofSeconds(5)))) {
            String why = tripWhileClosing(x, f -> armed.set(true));
            assertTrue(why.contains(ai.cotal.auth.internal.connect.AuthorityRole.WRITER.connectionName("alpha")) && why.contains("renewing its credential failed")
                    && why.contains("injected"), why);
        }
    }
}
