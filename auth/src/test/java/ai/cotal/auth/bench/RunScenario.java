package ai.cotal.auth.bench;

import ai.cotal.auth.ActorTokens;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.Grant;
import ai.cotal.auth.ManagerRuns;
import ai.cotal.auth.ManagerRuns.Kind;
import ai.cotal.auth.RunParty;
import ai.cotal.auth.records.RunRecords;
import ai.cotal.auth.TestManager;
import ai.cotal.auth.internal.run.ObservedRunRequests;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.id.Actor;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import ai.cotal.core.id.RunId;
import ai.cotal.core.internal.grants.AuthorityGrants;
import ai.cotal.core.issued.Ceiling;
import ai.cotal.core.issued.IssuedAuthority;
import ai.cotal.core.issued.IssuedRef;
import ai.cotal.core.issued.Source;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.NatsBroker;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import io.nats.client.Subscription;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Manager runs (issue #20): {@code scripts/bench RunScenario [rounds]} (default 2,000). On one
 * loopback broker: a bare request/reply (the floor); a served resume end to end (the caller
 * publishes a served run request, the test-side manager receives it and forwards it to the plane
 * in process, the plane flushes, takes the observation and issues the attempt); the guard alone
 * (flush + take after a publish, on its own table); then a flood of 100,000 served run-request
 * publishes into the plane's table, with the table's size and the heap before and after. Prints
 * one table.
 */
public final class RunScenario {
    private static final String RUN = "run00000000000000000000001";

    private RunScenario() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        Clock clock = Clock.systemUTC();
        SpaceAuth auth = SpaceAuth.create("alpha", clock);
        InMemorySecretStore store = BenchSpace.store(auth);
        Path stateDir = Files.createTempDirectory("run-scenario");
        try (NatsBroker nats = BenchSpace.broker(auth);
                AuthAuthorityPlane plane = AuthAuthorityPlane.open(BenchSpace.unbudgeted(AuthPlaneOptions.builder()
                        .server(nats.url()).space("alpha").stateDir(stateDir).secretStore(store).signer(auth.strip())
                        .clock(clock)).build());
                Connection caller = connect(nats, auth, "bench-caller");
                Connection manager = connect(nats, auth, "bench-manager");
                Connection responder = connect(nats, auth, "bench-responder")) {
            String owner = RunParty.OWNER;
            plane.ledger().grantActor(Principal.of(owner, "mgr"), Grant.of(List.of("supervise"), List.of(), List.of()));
            LifecycleUid uid = ActorTokens.newLifecycleUid();
            plane.ledger().grantManagedActor(Principal.of(owner, "worker"), Grant.of(List.of("chat"), List.of(), List.of()),
                    ActorTokens.tokenHash(ActorTokens.newActorToken()), uid);
            try (TestManager registrar = TestManager.candidate(plane, nats, owner, "mgr", RunParty.IID,
                    RunParty.RUN_COMMANDS)) {
                ManagerRuns.Holder holder = new ManagerRuns.Holder(Principal.of(owner, "mgr"), new InstanceId(RunParty.IID), List.of("supervise"));
                String token = issuedCaller(plane, caller, owner);
                plane.managerRuns().admit(holder, new ManagerRuns.AdmissionRequest(new RunId(RUN), new Actor("worker"), uid));
                registrar.put(RunRecords.checkpointKey(RunParty.IID, "cp1"), RunRecords.waiting("cp1", RUN));
                Subscription served = manager.subscribe("cotal.alpha.svc.manager." + owner + ".run.>");
                Dispatcher echo = responder.createDispatcher(m -> responder.publish(m.getReplyTo(), m.getData()));
                echo.subscribe("bench.echo");
                responder.flush(Duration.ofSeconds(5));
                manager.flush(Duration.ofSeconds(5));
                byte[] body = RunRecords.envelope(RUN, "cp1", null);
                int warm = Math.min(500, rounds);
                long[] bare = new long[rounds];
                long[] resume = new long[rounds];
                int seq = 0;
                for (int pass = 0; pass < 2; pass++) { // a warm pass, then the measured one
                    int n = pass == 0 ? warm : rounds;
                    for (int i = 0; i < n; i++) {
                        long start = System.nanoTime();
                        caller.request("bench.echo", body, Duration.ofSeconds(5));
                        long bareNanos = System.nanoTime() - start;
                        String subject = RunRecords.servedSubject("alpha", owner, Kind.RESUME, RUN, token);
                        ++seq;
                        start = System.nanoTime();
                        caller.publish(subject, body);
                        Message seen = served.nextMessage(Duration.ofSeconds(5));
                        plane.managerRuns().issueAttempt(holder, new ManagerRuns.AttemptRequest(new RunId(RUN),
                                new RunId(String.format("att%023d", seq)), Kind.RESUME, Identity.create().id(), Optional.of("cp1"),
                                Optional.empty(), Optional.of(seen.getSubject())));
                        long resumeNanos = System.nanoTime() - start;
                        if (pass == 1) {
                            bare[i] = bareNanos;
                            resume[i] = resumeNanos;
                        }
                    }
                }
                long[] guard = guard(nats, auth, caller, rounds);
                System.out.println("\n| measure | p50 | p99 | ratio to bare request/reply (p50) |");
                System.out.println("|---|---|---|---|");
                row("bare request/reply (floor)", bare, bare);
                row("served resume: publish -> manager receives -> plane issues", resume, bare);
                row("guard alone: flush + take", guard, bare);
                flood(plane, caller, owner);
            }
        }
    }

    /** The guard on its own table: a publish reaches the server, then the timed flush + take. */
    private static long[] guard(NatsBroker nats, SpaceAuth auth, Connection caller, int rounds) throws Exception {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        long[] nanos = new long[rounds];
        try (Connection issuer = connect(nats, auth, "bench-issuer");
                ObservedRunRequests table = new ObservedRunRequests(issuer, "alpha", Clock.systemUTC(),
                        ObservedRunRequests.Bounds.PLANE, scheduler)) {
            byte[] body = RunRecords.envelope(RUN, "cp1", null);
            for (int i = 0; i < rounds + 500; i++) {
                String subject = RunRecords.servedSubject("alpha", RunParty.OWNER, Kind.RESUME, RUN,
                        String.format("%032x", i));
                caller.publish(subject, body);
                caller.flush(Duration.ofSeconds(5));
                long start = System.nanoTime();
                if (table.peek(subject).map(table::take).orElse(false) == false) {
                    throw new IllegalStateException("a false refusal at " + i);
                }
                if (i >= 500) {
                    nanos[i - 500] = System.nanoTime() - start;
                }
            }
        } finally {
            scheduler.shutdownNow();
        }
        return nanos;
    }

    /**
     * The caller's issuance, written as the callout writes an interactive manager-caller's (SPEC
     * §13.15): an actor {@code laptop} of {@code owner}, its ledger source, a ceiling that grants
     * its served resumes; answers its accepted token.
     */
    private static String issuedCaller(AuthAuthorityPlane plane, Connection admin, String owner) {
        String uid = plane.ledger().grantActor(Principal.of(owner, "laptop"), Grant.of(List.of("run-resume"), List.of(),
                List.of())).lifecycleUid().value();
        String token = IssuedAuthority.acceptedToken("bench-caller-" + uid);
        IssuedAuthority issued = IssuedAuthority.bind(admin, "alpha", source -> true, Clock.systemUTC());
        IssuedRef ref = new IssuedRef("alpha", owner, "laptop", uid, IssuedAuthority.newGeneration());
        Ceiling ceiling = new Ceiling(Ceiling.Side.patterns(List.of(AuthorityGrants.runCallerGrant("cotal.alpha", owner,
                Kind.RESUME.wire(), token)), List.of()), Ceiling.Side.none());
        issued.release(issued.stage(ref, List.of(new Source("alpha", "cotal_actors_alpha", "actor." + owner + ".laptop."
                + uid)), ceiling, Optional.empty()), token);
        return token;
    }

    /** 100,000 served run-request publishes into the plane's table: its size and the heap it holds. */
    private static void flood(AuthAuthorityPlane plane, Connection caller, String owner) throws Exception {
        long before = heap();
        byte[] body = RunRecords.envelope(RUN, "cp1", null);
        long start = System.nanoTime();
        for (int i = 0; i < 100_000; i++) { // callers of many owners: the total bound holds
            int n = i % 100;
            String flooder = "u_" + "a".repeat(24) + (char) ('a' + n / 26) + (char) ('a' + n % 26);
            caller.publish(RunRecords.servedSubject("alpha", flooder, Kind.RESUME, RUN, String.format("%032x", i)), body);
        }
        caller.flush(Duration.ofSeconds(30));
        int size = 0;
        for (int tries = 0; tries < 100 && size < ManagerRuns.MAX_OBSERVED; tries++) {
            size = plane.managerRuns().observedCount(); // drains what the issuer connection has read
            if (size < ManagerRuns.MAX_OBSERVED) {
                Thread.sleep(50); // the broker is still delivering to the issuer connection
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long after = heap();
        System.out.printf("%nflood: 100,000 publishes in %.1f s; the table holds %,d (bound %,d); heap %,d KiB before, %,d KiB"
                + " after (%+,d KiB, about %d B per entry)%n", seconds, size, ManagerRuns.MAX_OBSERVED, before / 1024,
                after / 1024, (after - before) / 1024, size == 0 ? 0 : (after - before) / size);
    }

    private static long heap() throws InterruptedException {
        Runtime runtime = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return runtime.totalMemory() - runtime.freeMemory();
    }

    private static void row(String name, long[] nanos, long[] floor) {
        System.out.printf("| %s | %.3f ms | %.3f ms | %.2fx |%n", name, pct(nanos, 50), pct(nanos, 99),
                pct(nanos, 50) / pct(floor, 50));
    }

    private static double pct(long[] nanos, int p) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, sorted.length * p / 100)] / 1e6;
    }

    private static Connection connect(NatsBroker nats, SpaceAuth auth, String label) {
        Identity identity = Identity.create();
        String jwt = NatsJwt.encode(ClaimSet.of(identity.id(), label, UserClaim.of(null, null,
                auth.account().accountPublicKey(), null), java.time.Instant.now()), auth.account().signing());
        return NatsConnector.builder().server(nats.url()).creds(new Creds(jwt, identity)).label(label).build().connect();
    }
}
