package ai.cotal.auth.bench;

import ai.cotal.auth.ServiceEndpointHost;
import ai.cotal.auth.ActorLedger;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.Granter;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.testbroker.NatsBroker;
import io.nats.client.Options;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Scenario: service-endpoint host invocations per second with 8 threads (each invocation runs
 * discovery, opens its own scoped effect connection and writes its records), against static-JWT
 * connects per second with 8 threads on the same broker in the same run. Two kinds are measured:
 * {@code register} (bind, admit, intend, proposal, gate) and {@code decide approve} of those
 * registrations (ten writes). Prints rates, the ratio to the floor and p50/p99.
 */
public final class EndpointScenario {
    private static final int REPEATS = 3;

    private EndpointScenario() {
    }

    public static void main(String[] args) throws Exception {
        int perThread = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        Clock clock = Clock.systemUTC();
        SpaceAuth auth = SpaceAuth.create("alpha", clock);
        InMemorySecretStore store = BenchSpace.store(auth);
        try (NatsBroker nats = BenchSpace.broker(auth);
             AuthAuthorityPlane plane = AuthAuthorityPlane.open(BenchSpace.unbudgeted(AuthPlaneOptions.builder()
                     .server(nats.url()).space("alpha")
                     .stateDir(Files.createTempDirectory("endpoint-scenario")).secretStore(store).signer(auth.strip())
                     .serviceEndpoints(true)).build())) {
            String owner = "u_abcdefghijklmnopqrstuvwxyz";
            plane.ledger().grantActor(owner, "bench", ActorLedger.Grant.of(List.of(), List.of(), List.of()));
            Granter granter = new Granter.Owner(owner, "bench");
            Creds staticCreds = Creds.mint(auth, Identity.create(), CredentialProfile.OBSERVER, MintOptions.defaults());
            Options staticConnect = new Options.Builder().server(nats.url()).noReconnect()
                    .connectionTimeout(Duration.ofSeconds(10)).maxControlLine(ServerConfig.MAX_CONTROL_LINE)
                    .authHandler(staticCreds.authHandler()).inboxPrefix(staticCreds.inboxPrefix()).build();
            AtomicLong ids = new AtomicLong(System.nanoTime());

            Concurrent.run(threads, 20, (t, i) -> CalloutScenario.connectOnly(staticConnect));
            Concurrent.run(threads, 20, (t, i) -> invoke(plane, granter, register(ids)));
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newCachedThreadPool(r -> {
                Thread t = new Thread(r);
                t.setDaemon(true);
                return t;
            });
            java.util.concurrent.ScheduledExecutorService timers = java.util.concurrent.Executors.newScheduledThreadPool(1);
            Options pooledConnect = new Options.Builder(staticConnect).executor(pool).scheduledExecutor(timers)
                    .connectExecutor(pool).callbackExecutor(pool).readerExecutor(pool).writerExecutor(pool).bufferSize(8192)
                    .build();
            List<Concurrent.Result> floors = new java.util.ArrayList<>();
            List<Concurrent.Result> pooledFloors = new java.util.ArrayList<>();
            List<Concurrent.Result> registers = new java.util.ArrayList<>();
            List<Concurrent.Result> decides = new java.util.ArrayList<>();
            for (int rep = 0; rep < REPEATS; rep++) {
                floors.add(Concurrent.run(threads, perThread, (t, i) -> CalloutScenario.connectOnly(staticConnect)));
                pooledFloors.add(Concurrent.run(threads, perThread, (t, i) -> CalloutScenario.connectOnly(pooledConnect)));
                String[][] instances = new String[threads][perThread];
                registers.add(Concurrent.run(threads, perThread, (t, i) -> {
                    HostRequest.Register r = register(ids);
                    instances[t][i] = r.instanceId();
                    invoke(plane, granter, r);
                }));
                decides.add(Concurrent.run(threads, perThread, (t, i) -> invoke(plane, granter,
                        new HostRequest.Decide(requestId(ids), "bench", instances[t][i], HostRequest.Decision.APPROVE))));
            }
            Concurrent.Result floor = Concurrent.median(floors);
            System.out.println("\n| path (" + threads + " threads, median of " + REPEATS + " interleaved runs) | ops/s"
                    + " | p50 ms | p99 ms | ratio to floor |");
            System.out.println("|---|---|---|---|---|");
            System.out.println(floor.row("static user JWT connect (floor, jnats defaults)", floor));
            System.out.println(Concurrent.median(pooledFloors).row("static user JWT connect, shared pools like the effect"
                    + " connections", floor));
            System.out.println(Concurrent.median(registers).row("host register (own effect connection, 5 writes)", floor));
            System.out.println(Concurrent.median(decides).row("host decide approve (own effect connection, 10 writes)",
                    floor));
            timers.shutdownNow();
            pool.shutdownNow();
        }
    }

    private static String requestId(AtomicLong ids) {
        return "bench-request-" + ids.incrementAndGet();
    }

    private static HostRequest.Register register(AtomicLong ids) {
        String instance = String.format("%026d", ids.incrementAndGet() % 1_000_000_000_000_000L);
        return new HostRequest.Register(requestId(ids), "bench", instance, "sha256:" + "c".repeat(64), List.of("ask"));
    }

    private static void invoke(AuthAuthorityPlane plane, Granter granter, HostRequest request) {
        Instant deadline = Instant.now().plusSeconds(30);
        ServiceEndpointHost host = plane.serviceEndpoints().orElseThrow();
        HostResult result = request instanceof HostRequest.Register r ? host.admit(granter, r, deadline)
                : host.serve(granter, request, deadline);
        if (result.status() != HostResult.Status.PENDING && result.status() != HostResult.Status.COMPLETED) {
            throw new IllegalStateException(request.kind() + " answered " + result.status().wire() + " " + result.reason());
        }
    }
}
