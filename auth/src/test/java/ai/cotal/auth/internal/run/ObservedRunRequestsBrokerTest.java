package ai.cotal.auth.internal.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ManagerRuns.Kind;
import ai.cotal.auth.PlaneFixture;
import ai.cotal.auth.RunRecords;
import ai.cotal.auth.TestClock;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The observation table of SPEC §14.8 on a real broker, with an injected clock: the window, the
 * prune from the head, what does not parse, and the bound.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class ObservedRunRequestsBrokerTest {
    static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";
    static final String RUN = "run00000000000000000000001";
    private final PlaneFixture f = new PlaneFixture();
    private final AtomicLong now = new AtomicLong(1_800_000_000_000L);
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    private static String subject(int n) {
        return RunRecords.servedSubject("alpha", OWNER, Kind.RESUME, RUN, String.format("request%012d", n));
    }

    private static void publish(Connection caller, int n) {
        caller.publish(subject(n), RunRecords.envelope(RUN, "cp1", null));
    }

    /** The caller's publishes reached the server, then the issuer read what the server queued to it. */
    private static void flush(Connection caller, Connection issuer) throws Exception {
        caller.flush(java.time.Duration.ofSeconds(5));
        issuer.flush(java.time.Duration.ofSeconds(5));
    }

    @Test
    void anObservationOlderThanTheWindowIsRefusedAndPrunedFromTheHead(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (Connection issuer = f.admin(nats); Connection caller = f.admin(nats);
                ObservedRunRequests observed = new ObservedRunRequests(issuer, "alpha", new TestClock(now::get), 100,
                        scheduler)) {
            publish(caller, 1);
            publish(caller, 2);
            flush(caller, issuer);
            assertEquals(2, observed.size());
            now.addAndGet(ObservedRunRequests.WINDOW.toMillis()); // exactly 5 minutes later: expired
            assertTrue(observed.take(subject(1)).isEmpty(), "observed 5 minutes ago: refused");
            now.addAndGet(-1);
            assertTrue(observed.take(subject(2)).isPresent(), "a millisecond inside the window: taken");
            assertTrue(observed.take(subject(2)).isEmpty(), "taken once");

            publish(caller, 3);
            flush(caller, issuer);
            assertEquals(1, observed.size(), "observed now (a drain stamps it with the clock)");
            now.addAndGet(ObservedRunRequests.WINDOW.toMillis() + 1);
            publish(caller, 4); // its arrival prunes the expired head
            flush(caller, issuer);
            assertEquals(1, observed.size(), "the expired head was pruned");
            caller.publish(subject(5), "{\"v\":1,\"runId\":\"other\"}".getBytes(StandardCharsets.UTF_8));
            caller.publish(subject(6), "not json".getBytes(StandardCharsets.UTF_8));
            caller.publish(RunRecords.servedSubject("alpha", OWNER, Kind.START, RUN, "request000000000007"),
                    RunRecords.envelope(RUN, "cp1", null)); // a start names no checkpoint
            flush(caller, issuer);
            assertEquals(1, observed.size(), "what does not parse is ignored");
            assertTrue(observed.take(subject(5)).isEmpty());
        }
    }

    @Test
    void onlyTheSpacesServedSubjectsAreObserved(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (Connection issuer = f.admin(nats); Connection caller = f.admin(nats);
                ObservedRunRequests observed = new ObservedRunRequests(issuer, "alpha", new TestClock(now::get), 100,
                        scheduler)) {
            assertEquals(List.of("cotal.alpha.svc.manager.*.run.start.*.*", "cotal.alpha.svc.manager.*.run.resume.*.*",
                    "cotal.alpha.svc.manager.*.run.answer.*.*"), ObservedRunRequests.subjects("alpha"));
            String literal = "P.svc.manager." + OWNER + ".run.resume." + RUN + ".request000000000001";
            String otherSpace = "cotal.beta.svc.manager." + OWNER + ".run.resume." + RUN + ".request000000000002";
            caller.publish(literal, RunRecords.envelope(RUN, "cp1", null));
            caller.publish(otherSpace, RunRecords.envelope(RUN, "cp1", null));
            publish(caller, 3);
            flush(caller, issuer);
            assertEquals(1, observed.size(), "only the space's subject was observed");
            assertTrue(observed.take(literal).isEmpty(), "a literal P. subject is never observed");
            assertTrue(observed.take(subject(3)).isPresent(), "the space's subject is");
            assertTrue(subject(3).startsWith("cotal.alpha.svc.manager."), subject(3));
        }
    }

    @Test
    void theTableIsBoundedWhateverTheFlood(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (Connection issuer = f.admin(nats); Connection caller = f.admin(nats);
                ObservedRunRequests observed = new ObservedRunRequests(issuer, "alpha", new TestClock(now::get), 100,
                        scheduler)) {
            for (int i = 0; i < 1_000; i++) {
                publish(caller, i);
            }
            flush(caller, issuer);
            assertEquals(100, observed.size(), "at most the bound");
            assertTrue(observed.take(subject(0)).isEmpty(), "the oldest was dropped: its forward is refused");
            assertTrue(observed.take(subject(999)).isPresent(), "the newest is kept");
        }
    }
}
