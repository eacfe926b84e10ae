package ai.cotal.auth.bench;

import ai.cotal.auth.Grant;
import ai.cotal.auth.ServiceEndpointHost;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.Granter;
import ai.cotal.auth.internal.endpoint.EndpointIo;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.id.Principal;
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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Scenario: service-endpoint host invocations per second with 8 threads, against static-JWT
 * connects per second with 8 threads on the same broker in the same run. Measured: {@code register}
 * (discovery, its own scoped effect connection, five writes) and {@code decide approve} of those
 * registrations (eight writes), and for each the broker I/O it cannot do without and nothing else
 * ({@link EndpointIo}): what bounds the host. Every path runs in {@link #WARMUP} untimed rounds
 * first (the JIT compiles the host's paths too), then in {@code repeats} interleaved timed rounds;
 * a path's ratio is taken against the floor of its own round, and the table shows the median
 * round's rate and latency, the median ratio with its spread over the rounds, and the CPU the JVM
 * and the broker spent per operation over the timed rounds (from {@code /proc}, when it can be read).
 */
public final class EndpointScenario {
    /**
     * Untimed rounds before the timed ones: the JIT's compile CPU on the host paths took about ten
     * thousand invocations to settle (about 1.5 ms per call in the first rounds, under 0.3 ms after six).
     */
    private static final int WARMUP = 6;

    private EndpointScenario() {
    }

    /** One measured path: runs one round, {@code perThread} calls on each thread. */
    private interface Path {
        Concurrent.Result round() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        int perThread = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        int repeats = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        Clock clock = Clock.systemUTC();
        SpaceAuth auth = SpaceAuth.create("alpha", clock);
        InMemorySecretStore store = BenchSpace.store(auth);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r);
            t.setDaemon(true);
            return t;
        });
        java.util.concurrent.ScheduledExecutorService timers = java.util.concurrent.Executors.newScheduledThreadPool(1);
        try (NatsBroker nats = BenchSpace.broker(auth);
             AuthAuthorityPlane plane = AuthAuthorityPlane.open(BenchSpace.unbudgeted(AuthPlaneOptions.builder()
                     .server(nats.url()).space("alpha")
                     .stateDir(Files.createTempDirectory("endpoint-scenario")).secretStore(store).signer(auth.strip())
                     .serviceEndpoints(true)).build());
             EndpointIo io = new EndpointIo(plane, auth.strip(), nats.url())) {
            String owner = "u_abcdefghijklmnopqrstuvwxyz";
            plane.ledger().grantActor(Principal.of(owner, "bench"), Grant.of(List.of(), List.of(), List.of()));
            Granter granter = new Granter.Owner(owner, "bench");
            Creds staticCreds = Creds.mint(auth, Identity.create(), CredentialProfile.OBSERVER, MintOptions.defaults());
            Options staticConnect = new Options.Builder().server(nats.url()).noReconnect()
                    .connectionTimeout(Duration.ofSeconds(10)).maxControlLine(ServerConfig.MAX_CONTROL_LINE)
                    .authHandler(staticCreds.authHandler()).inboxPrefix(staticCreds.inboxPrefix()).build();
            Options pooledConnect = new Options.Builder(staticConnect).executor(pool).scheduledExecutor(timers)
                    .connectExecutor(pool).callbackExecutor(pool).readerExecutor(pool).writerExecutor(pool).bufferSize(8192)
                    .build();
            AtomicLong ids = new AtomicLong(System.nanoTime());
            String[][] instances = new String[threads][perThread];
            Map<String, Path> paths = new LinkedHashMap<>();
            paths.put("static user JWT connect (floor, jnats defaults)",
                    () -> Concurrent.run(threads, perThread, (t, i) -> CalloutScenario.connectOnly(staticConnect)));
            paths.put("static user JWT connect, shared pools like the effect connections",
                    () -> Concurrent.run(threads, perThread, (t, i) -> CalloutScenario.connectOnly(pooledConnect)));
            paths.put("host register (4 reads, own effect connection, 5 writes)",
                    () -> Concurrent.run(threads, perThread, (t, i) -> {
                        HostRequest.Register r = register(ids);
                        instances[t][i] = r.instanceId();
                        invoke(plane, granter, r);
                    }));
            paths.put("register's I/O alone (same reads, connect and writes; no host logic)",
                    () -> Concurrent.run(threads, perThread, (t, i) -> io.register()));
            paths.put("host decide approve (8 reads, own effect connection, 8 writes)",
                    () -> Concurrent.run(threads, perThread, (t, i) -> invoke(plane, granter,
                            new HostRequest.Decide(requestId(ids), "bench", instances[t][i], HostRequest.Decision.APPROVE))));
            paths.put("decide's I/O alone (same reads, connect and writes; no host logic)",
                    () -> Concurrent.run(threads, perThread, (t, i) -> io.decide()));
            for (int round = 0; round < WARMUP; round++) {
                for (Path path : paths.values()) {
                    path.round();
                }
            }
            Map<String, List<Concurrent.Result>> results = new LinkedHashMap<>();
            Map<String, List<Double>> ratios = new LinkedHashMap<>();
            Map<String, long[]> cpu = new LinkedHashMap<>(); // JVM and broker nanos over the timed rounds
            for (int rep = 0; rep < repeats; rep++) {
                Concurrent.Result floor = null;
                for (Map.Entry<String, Path> path : paths.entrySet()) {
                    CpuMeter before = CpuMeter.now();
                    Concurrent.Result r = path.getValue().round();
                    CpuMeter after = CpuMeter.now();
                    long[] used = cpu.computeIfAbsent(path.getKey(), k -> new long[2]);
                    used[0] = before.jvmNanos() < 0 || used[0] < 0 ? CpuMeter.UNKNOWN : used[0] + after.jvmNanos() - before.jvmNanos();
                    used[1] = before.brokerNanos() < 0 || used[1] < 0 ? CpuMeter.UNKNOWN
                            : used[1] + after.brokerNanos() - before.brokerNanos();
                    floor = floor == null ? r : floor;
                    results.computeIfAbsent(path.getKey(), k -> new ArrayList<>()).add(r);
                    ratios.computeIfAbsent(path.getKey(), k -> new ArrayList<>()).add(r.rate() / floor.rate());
                }
            }
            long ops = (long) repeats * threads * perThread;
            System.out.println("\n| path (" + threads + " threads; median of " + repeats + " interleaved rounds after " + WARMUP
                    + " warm-up rounds) | ops/s | p50 ms | p99 ms | ratio to floor (median, min-max) | JVM CPU us/op"
                    + " | broker CPU us/op |");
            System.out.println("|---|---|---|---|---|---|---|");
            results.forEach((name, runs) -> {
                Concurrent.Result median = Concurrent.median(runs);
                List<Double> r = new ArrayList<>(ratios.get(name));
                r.sort(null);
                long[] used = cpu.get(name);
                System.out.printf("| %s | %.0f | %.2f | %.2f | %.2fx (%.2f-%.2f) | %.0f | %.0f |%n", name, median.rate(),
                        median.percentileMillis(0.5), median.percentileMillis(0.99), r.get(r.size() / 2), r.get(0),
                        r.get(r.size() - 1), CpuMeter.microsPerOp(0, used[0], ops), CpuMeter.microsPerOp(0, used[1], ops));
            });
        } finally {
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
