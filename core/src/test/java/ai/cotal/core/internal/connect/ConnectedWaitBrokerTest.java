package ai.cotal.core.internal.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.cotal.core.BrokerClients;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import java.io.IOException;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link ConnectedWait#run}: an operation whose answer a turnover lost runs again, a bounded number of times. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class ConnectedWaitBrokerTest {
    private final Clock clock = Clock.systemUTC();
    private final BrokerAuth broker = BrokerAuth.create("wait", clock);
    private final SpaceAccountAuth alpha = SpaceAccountAuth.create(broker, "alpha", clock);

    private NatsBroker start(NatsBrokers brokers) {
        return brokers.start(b -> BrokerClients.config(b, broker, List.of(alpha), List.of()));
    }

    @Test
    void aFailureThatMetATurnoverRunsAgainUpToThreeRunsAndOneWithoutATurnoverDoesNot(NatsBrokers brokers)
            throws Exception {
        NatsBroker nats = start(brokers);
        try (Connection connection = ai.cotal.core.connect.NatsConnector.builder().server(nats.url())
                .creds(BrokerClients.unrestricted(alpha)).label("test").maxReconnects(-1).build().connect()) {
            ConnectedWait wait = ConnectedWait.on(connection);
            // registered after the wait's own listener, so called after it for the same event
            java.util.concurrent.Semaphore reconnected = new java.util.concurrent.Semaphore(0);
            connection.addConnectionListener((conn, type) -> {
                if (type == io.nats.client.ConnectionListener.Events.RECONNECTED) {
                    reconnected.release();
                }
            });
            Turnover turnover = () -> {
                long mark = wait.mark();
                connection.forceReconnect();
                if (!reconnected.tryAcquire(10, java.util.concurrent.TimeUnit.SECONDS) || !wait.turnedOver(mark)) {
                    throw new AssertionError("forceReconnect did not turn the connection over");
                }
            };
            AtomicInteger runs = new AtomicInteger();
            // every run's answer is lost to a turnover: the connection drops under it and comes back
            IOException lost = assertThrows(IOException.class, () -> wait.run(() -> {
                runs.incrementAndGet();
                turnover.run();
                throw new IOException("answer lost #" + runs.get());
            }));
            assertEquals(ConnectedWait.MAX_RUNS, runs.get(), "run again while each failure met a turnover, then stop");
            assertEquals("answer lost #" + ConnectedWait.MAX_RUNS, lost.getMessage(), "the last failure is thrown");

            runs.set(0);
            IOException plain = new IOException("refused without a turnover");
            assertSame(plain, assertThrows(IOException.class, () -> wait.run(() -> {
                runs.incrementAndGet();
                throw plain;
            })));
            assertEquals(1, runs.get(), "a failure without a turnover is not retried");

            runs.set(0);
            assertEquals("answered", wait.run(() -> {
                if (runs.incrementAndGet() == 1) {
                    turnover.run();
                    throw new IOException("answer lost once");
                }
                return "answered";
            }));
            assertEquals(2, runs.get(), "the run after the turnover answers");
        }
    }

    /** Drops the connection and returns once it is back and the wait has seen it. */
    @FunctionalInterface
    private interface Turnover {
        void run() throws IOException, InterruptedException;
    }
}
