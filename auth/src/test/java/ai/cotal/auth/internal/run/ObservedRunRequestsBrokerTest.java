package ai.cotal.auth.internal.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ManagerRuns.Kind;
import ai.cotal.auth.PlaneFixture;
import ai.cotal.auth.records.RunRecords;
import ai.cotal.auth.TestClock;
import ai.cotal.auth.internal.connect.AuthorityRole;
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

    private static final ObservedRunRequests.Bounds WIDE = new ObservedRunRequests.Bounds(100, 100, 100);

    /** The accepted token of caller {@code n}: what a served resume's subject ends in. */
    private static String caller(int n) {
        return String.format("%032x", n);
    }

    private static String subject(int n) {
        return subject(OWNER, RUN, n);
    }

    private static String subject(String owner, String runId, int caller) {
        return RunRecords.servedSubject("alpha", owner, Kind.RESUME, runId, caller(caller));
    }

    private static void publish(Connection caller, int n) {
        caller.publish(subject(n), RunRecords.envelope(RUN, "cp1", null));
    }

    private static void publish(Connection caller, String owner, String runId, int n) {
        caller.publish(subject(owner, runId, n), RunRecords.envelope(runId, "cp1", null));
    }

    private static String run(int n) {
        return String.format("run%023d", n);
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
                ObservedRunRequests observed = new ObservedRunRequests(issuer, "alpha", new TestClock(now::get), WIDE,
                        scheduler)) {
            publish(caller, 1);
            publish(caller, 2);
            flush(caller, issuer);
            assertEquals(2, observed.size());
            now.addAndGet(ObservedRunRequests.WINDOW.toMillis()); // exactly 5 minutes later: expired
            assertTrue(observed.peek(subject(1)).isEmpty(), "observed 5 minutes ago: refused");
            now.addAndGet(-1);
            ObservedRunRequests.Seen seen = observed.peek(subject(2)).orElseThrow();
            assertTrue(observed.peek(subject(2)).isPresent(), "a look takes nothing");
            assertTrue(observed.take(seen), "a millisecond inside the window: taken");
            assertTrue(observed.peek(subject(2)).isEmpty(), "taken once");
            assertFalse(observed.take(seen), "taken once");
            observed.restore(seen);
            assertTrue(observed.take(observed.peek(subject(2)).orElseThrow()), "a restored observation is taken again");

            publish(caller, 3);
            flush(caller, issuer);
            assertEquals(2, observed.size(), "observed now (a drain stamps it with the clock), and the expired one a look"
                    + " left");
            now.addAndGet(ObservedRunRequests.WINDOW.toMillis() + 1);
            publish(caller, 4); // its arrival prunes the expired head
            flush(caller, issuer);
            assertEquals(1, observed.size(), "the expired head was pruned, up to the first live one");
            caller.publish(subject(5), "{\"v\":1,\"runId\":\"other\"}".getBytes(StandardCharsets.UTF_8));
            caller.publish(subject(6), "not json".getBytes(StandardCharsets.UTF_8));
            caller.publish(RunRecords.servedSubject("alpha", OWNER, Kind.START, RUN, "request000000000007"),
                    RunRecords.envelope(RUN, "cp1", null)); // a start names no checkpoint
            flush(caller, issuer);
            assertEquals(1, observed.size(), "what does not parse is ignored");
            assertTrue(observed.peek(subject(5)).isEmpty());
        }
    }

    @Test
    void onlyTheSpacesServedSubjectsAreObserved(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (Connection issuer = f.admin(nats); Connection caller = f.admin(nats);
                ObservedRunRequests observed = new ObservedRunRequests(issuer, "alpha", new TestClock(now::get), WIDE,
                        scheduler)) {
            assertEquals(List.of("cotal.alpha.svc.manager.*.run.resume.*.*", "cotal.alpha.svc.manager.*.run.answer.*.*"),
                    ai.cotal.core.internal.grants.AuthorityGrants.observedRunRequests("alpha"));
            String literal = "P.svc.manager." + OWNER + ".run.resume." + RUN + "." + caller(1);
            String otherSpace = "cotal.beta.svc.manager." + OWNER + ".run.resume." + RUN + "." + caller(2);
            caller.publish(literal, RunRecords.envelope(RUN, "cp1", null));
            caller.publish(otherSpace, RunRecords.envelope(RUN, "cp1", null));
            publish(caller, 3);
            flush(caller, issuer);
            assertEquals(1, observed.size(), "only the space's subject was observed");
            assertTrue(observed.peek(literal).isEmpty(), "a literal P. subject is never observed");
            assertTrue(observed.peek(subject(3)).isPresent(), "the space's subject is");
            assertTrue(subject(3).startsWith("cotal.alpha.svc.manager."), subject(3));
        }
    }

    @Test
    void theTableIsBoundedWhateverTheFlood(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (Connection issuer = f.admin(nats); Connection caller = f.admin(nats);
                ObservedRunRequests observed = new ObservedRunRequests(issuer, "alpha", new TestClock(now::get), WIDE,
                        scheduler)) {
            for (int i = 0; i < 1_000; i++) {
                publish(caller, i);
            }
            flush(caller, issuer);
            assertEquals(100, observed.size(), "at most the bound");
            assertTrue(observed.peek(subject(0)).isEmpty(), "the oldest was dropped: its forward is refused");
            assertTrue(observed.peek(subject(999)).isPresent(), "the newest is kept");
        }
    }

    /**
     * SPEC §14.8, the bounds: a caller's flood drops only that caller's oldest, an owner's only
     * that owner's, and past the total the owner holding the most loses its oldest; another
     * owner's observation stays.
     */
    @Test
    void aFloodDropsOnlyTheFloodersOwnObservations(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        String victim = "u_bbbbbbbbbbbbbbbbbbbbbbbbbb";
        try (Connection issuer = f.admin(nats); Connection caller = f.admin(nats);
                ObservedRunRequests observed = new ObservedRunRequests(issuer, "alpha", new TestClock(now::get),
                        new ObservedRunRequests.Bounds(100, 40, 10), scheduler)) {
            publish(caller, victim, RUN, 7);
            for (int i = 0; i < 1_000; i++) {
                publish(caller, OWNER, run(i), 1); // one caller, many runs
            }
            flush(caller, issuer);
            assertEquals(11, observed.size(), "the caller's ten newest and the victim's");
            assertTrue(observed.peek(subject(OWNER, run(989), 1)).isEmpty(), "the flooding caller's oldest went");
            assertTrue(observed.peek(subject(OWNER, run(990), 1)).isPresent());
            for (int i = 0; i < 1_000; i++) {
                publish(caller, OWNER, RUN, 100 + i); // many callers of one owner
            }
            flush(caller, issuer);
            assertEquals(41, observed.size(), "the owner's forty newest and the victim's");
            for (String owner : List.of("u_cccccccccccccccccccccccccc", "u_dddddddddddddddddddddddddd")) {
                for (int i = 0; i < 40; i++) {
                    publish(caller, owner, RUN, 2_000 + i);
                }
            }
            flush(caller, issuer);
            assertEquals(100, observed.size(), "at most the total");
            assertTrue(observed.peek(subject(victim, RUN, 7)).isPresent(), "no flood of another owner dropped the victim's");
        }
    }

    @Test
    void aStartAndARequestIdThatIsNoAcceptedTokenAreNeverKept(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (Connection issuer = f.admin(nats); Connection caller = f.admin(nats);
                ObservedRunRequests observed = new ObservedRunRequests(issuer, "alpha", new TestClock(now::get), WIDE,
                        scheduler)) {
            caller.publish("cotal.alpha.svc.manager." + OWNER + ".run.start." + RUN + "." + caller(1),
                    ("{\"v\":1,\"runId\":\"" + RUN + "\"}").getBytes(StandardCharsets.UTF_8));
            caller.publish(RunRecords.servedSubject("alpha", OWNER, Kind.RESUME, RUN, "request000000000001"),
                    RunRecords.envelope(RUN, "cp1", null));
            publish(caller, 2);
            flush(caller, issuer);
            assertEquals(1, observed.size(), "only the resume that ends in an accepted token is kept");
        }
    }
}
