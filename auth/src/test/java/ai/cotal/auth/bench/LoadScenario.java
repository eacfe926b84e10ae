package ai.cotal.auth.bench;

import ai.cotal.auth.Grant;
import ai.cotal.auth.ServiceEndpointHost;
import ai.cotal.auth.Granter;
import ai.cotal.auth.ServiceEndpoints;
import ai.cotal.auth.exchange.TokenExchange;
import ai.cotal.auth.service.AuthService;
import ai.cotal.auth.service.AuthServiceOptions;
import ai.cotal.auth.service.StockPlane;
import ai.cotal.core.CotalException;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.workspace.SecretKeys;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Load (issue #11 part 3): {@code scripts/bench LoadScenario [minutes] [clients] [standingTtlSeconds]}
 * (10, 32 and 900 by default) runs mixed traffic against the stock service of one space: agent exchanges over HTTP
 * followed by a connect through the auth callout, service-endpoint register and approve, and
 * instance-list reads. Every 30 s it samples the JVM's heap after a GC, its thread count, the
 * space's connections as the broker counts them (CONNZ), the broker's resident memory and the
 * operations so far. It prints the samples, then exits 1 when a request got neither an answer nor
 * a typed refusal, or when the last third of the run exceeds the first third in heap floor (its
 * minimum after GC; by more than a quarter plus 8 MiB), median threads (by 16) or median space
 * connections (by the number of clients).
 */
public final class LoadScenario {
    private static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";

    private LoadScenario() {
    }

    public static void main(String[] args) throws Exception {
        double minutes = args.length > 0 ? Double.parseDouble(args[0]) : 10;
        int clients = args.length > 1 ? Integer.parseInt(args[1]) : 32;
        Duration standingTtl = Duration.ofSeconds(args.length > 2 ? Long.parseLong(args[2]) : 900);
        Clock clock = Clock.systemUTC();
        SpaceAuth auth = SpaceAuth.create("alpha", clock);
        CalloutAuth callout = CalloutAuth.create("alpha", auth.broker(), auth.account().accountPublicKey(), clock);
        InMemorySecretStore store = BenchSpace.store(auth, callout);
        Path stateDir = Files.createTempDirectory("load-scenario");
        try (NatsBroker nats = BenchSpace.broker(auth, callout.jwt());
             AuthService service = AuthService.open(StockPlane.options(nats.url(), "alpha", stateDir, store)
                     .serviceEndpoints(ServiceEndpoints.normal()).standingTtl(standingTtl)
                     .writeBudgets(BenchSpace.UNBUDGETED).build(), AuthServiceOptions.builder().build())) {
            Grant grant = Grant.of(List.of("chat"), List.of("general"), List.of("general"));
            service.plane().ledger().grantActor(Principal.of(OWNER, "laptop"), grant);
            String secret = "load-agent-secret";
            service.plane().ledger().grantManagedActor(Principal.of(OWNER, "agent"), grant, ai.cotal.auth.ActorTokens.tokenHash(secret),
                    new LifecycleUid("loadagentuid000000000000000"));
            String capability = new ObjectMapper().readTree(stateDir.resolve(TokenExchange.DISCOVERY_FILE).toFile())
                    .path("capability").asText();
            HttpClient http = HttpClient.newHttpClient();
            Granter owner = new Granter.Owner(OWNER, "laptop");
            AtomicLong answered = new AtomicLong();
            AtomicLong refused = new AtomicLong();
            AtomicLong failed = new AtomicLong();
            AtomicLong ids = new AtomicLong(System.nanoTime());
            AtomicLong replays = new AtomicLong();
            List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
            String[] kinds = {"exchange+connect", "register+approve", "instance-list"};
            AtomicLong[] refusedByKind = {new AtomicLong(), new AtomicLong(), new AtomicLong()};
            java.util.Map<String, String> firstReasons = new java.util.concurrent.ConcurrentHashMap<>();
            long end = System.nanoTime() + (long) (minutes * 60e9);
            List<Thread> threads = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int kind = c % 3;
                Thread t = new Thread(() -> {
                    while (System.nanoTime() < end) {
                        try {
                            switch (kind) {
                                case 0 -> exchangeAndConnect(http, service, capability, secret, callout, nats, ids);
                                case 1 -> registerAndApprove(service, owner, ids, replays);
                                default -> service.plane().serviceEndpoints().orElseThrow().serve(owner,
                                        new HostRequest.InstanceList(null, 20));
                            }
                            answered.incrementAndGet();
                        } catch (CotalException e) {
                            refused.incrementAndGet();
                            refusedByKind[kind].incrementAndGet();
                            firstReasons.putIfAbsent(kinds[kind], e.code() + ": " + e.getMessage());
                        } catch (Exception e) {
                            failed.incrementAndGet();
                            if (failures.size() < 5) {
                                failures.add(e.getClass().getSimpleName() + ": " + e.getMessage());
                            }
                        }
                    }
                }, "load-client-" + c);
                threads.add(t);
                t.start();
            }
            Connection observer = ai.cotal.core.connect.NatsConnector.builder().server(nats.url()).creds(Creds.parse(
                    store.getText(SecretKeys.membershipObserverCredsKey("alpha")).orElseThrow())).label("load-observer")
                    .build().connect();
            System.out.println("| t (s) | answered | refused | failed | heap after GC (MiB) | JVM threads | space connections"
                    + " | broker RSS (MiB) |");
            System.out.println("|---|---|---|---|---|---|---|---|");
            List<long[]> samples = new ArrayList<>();
            long start = System.nanoTime();
            while (System.nanoTime() < end) {
                Thread.sleep(Math.min(30_000, Math.max(1, (end - System.nanoTime()) / 1_000_000))); // the sampling period
                System.gc();
                long heap = (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) / (1 << 20);
                long threadCount = ManagementFactory.getThreadMXBean().getThreadCount();
                long rss = nats.residentKib() / 1024;
                long connections = spaceConnections(observer, auth.account().accountPublicKey());
                long seconds = (System.nanoTime() - start) / 1_000_000_000L;
                samples.add(new long[] {seconds, heap, threadCount, connections});
                System.out.printf("| %d | %d | %d | %d | %d | %d | %d | %d |%n", seconds, answered.get(), refused.get(),
                        failed.get(), heap, threadCount, connections, rss);
            }
            for (Thread t : threads) {
                t.join();
            }
            observer.close();
            boolean leak = false;
            if (samples.size() >= 3) {
                // a leak raises the floor: compare the first and last thirds of the run, heap by its
                // minimum after GC (one sample is noise), threads by their median
                int third = Math.max(1, samples.size() / 3);
                List<long[]> first = samples.subList(0, third);
                List<long[]> last = samples.subList(samples.size() - third, samples.size());
                long heapFirst = first.stream().mapToLong(x -> x[1]).min().orElseThrow();
                long heapLast = last.stream().mapToLong(x -> x[1]).min().orElseThrow();
                long threadsFirst = median(first.stream().mapToLong(x -> x[2]).toArray());
                long threadsLast = median(last.stream().mapToLong(x -> x[2]).toArray());
                long connectionsFirst = median(first.stream().mapToLong(x -> x[3]).toArray());
                long connectionsLast = median(last.stream().mapToLong(x -> x[3]).toArray());
                leak = heapLast > heapFirst * 5 / 4 + 8 || threadsLast > threadsFirst + 16
                        || connectionsLast > connectionsFirst + clients;
                System.out.printf("%nfirst third -> last third: heap floor %d -> %d MiB, median threads %d -> %d,"
                        + " median space connections %d -> %d%n", heapFirst, heapLast, threadsFirst, threadsLast,
                        connectionsFirst, connectionsLast);
            }
            for (int k = 0; k < kinds.length; k++) {
                System.out.printf("refused %s: %d%s%n", kinds[k], refusedByKind[k].get(),
                        firstReasons.containsKey(kinds[k]) ? " (first: " + firstReasons.get(kinds[k]) + ")" : "");
            }
            System.out.println("held invocations replayed: " + replays.get());
            failures.forEach(f -> System.out.println("failure: " + f));
            System.out.println(failed.get() == 0 && !leak ? "load: every request answered or refused; threads and heap flat"
                    : "load: FAILED (" + failed.get() + " unanswered, leak=" + leak + ")");
            if (failed.get() > 0 || leak) {
                System.exit(1);
            }
        }
    }

    /** The data account's connections as the broker counts them (CONNZ through the membership observer). */
    private static long spaceConnections(Connection observer, String account) throws Exception {
        byte[] reply = observer.request("$SYS.REQ.ACCOUNT." + account + ".CONNZ", "{\"limit\":1}".getBytes(
                StandardCharsets.UTF_8), Duration.ofSeconds(10)).getData();
        return new ObjectMapper().readTree(reply).path("data").path("total").asLong(-1);
    }

    private static long median(long[] values) {
        long[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static void exchangeAndConnect(HttpClient http, AuthService service, String capability, String secret,
            CalloutAuth callout, NatsBroker nats, AtomicLong ids) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(service.loopbackUrl() + "/exchange"))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + capability)
                .POST(HttpRequest.BodyPublishers.ofString("{\"owner\":\"" + OWNER + "\",\"actor\":\"agent\",\"actorToken\":\""
                        + secret + "\"}")).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new CotalException(ai.cotal.core.ErrorCode.UNAVAILABLE, "exchange answered " + response.statusCode());
        }
        String bearer = new ObjectMapper().readTree(response.body()).path("token").asText();
        String nonce = ai.cotal.auth.InboxNonce.of(Principal.of(OWNER, "agent"), "load" + ids.incrementAndGet() + "-bench");
        Violation violation = new Violation();
        Options options = new Options.Builder().server(nats.url()).noReconnect().connectionTimeout(Duration.ofSeconds(10))
                .maxControlLine(ServerConfig.MAX_CONTROL_LINE).authHandler(callout.sentinelCreds().authHandler())
                .token(bearer.toCharArray()).connectionName(nonce).inboxPrefix(ai.cotal.auth.InboxNonce.inboxPrefix(nonce))
                .errorListener(violation).build();
        Connection connection;
        try {
            connection = Nats.connect(options);
        } catch (java.io.IOException e) {
            if (violation.refused) { // the broker answered: the callout refused (a refusal, not silence)
                throw new CotalException(ai.cotal.core.ErrorCode.PERMISSION_DENIED, "the broker refused the connect");
            }
            throw e;
        }
        connection.close();
    }

    /** Notes the broker's "Authorization Violation" for a connect. */
    private static final class Violation implements io.nats.client.ErrorListener {
        volatile boolean refused;

        @Override
        public void errorOccurred(Connection conn, String error) {
            if (error.contains("Authorization Violation")) {
                refused = true;
            }
        }
    }

    private static void registerAndApprove(AuthService service, Granter owner, AtomicLong ids, AtomicLong replays) {
        String instance = String.format("%026d", ids.incrementAndGet() % 1_000_000_000_000_000L);
        HostRequest.Register register = new HostRequest.Register("load-req-" + ids.incrementAndGet(), "load", instance,
                "sha256:" + "c".repeat(64), List.of("ask"));
        ServiceEndpointHost host = service.plane().serviceEndpoints().orElseThrow();
        HostResult pending = finished(() -> host.admit(owner, register), replays);
        HostRequest.Decide approve = new HostRequest.Decide("load-req-" + ids.incrementAndGet(), "load", instance,
                HostRequest.Decision.APPROVE);
        HostResult approved = finished(() -> host.serve(owner, approve), replays);
        if (pending.status() != HostResult.Status.PENDING || approved.status() != HostResult.Status.COMPLETED) {
            throw new IllegalStateException("register/approve answered " + pending.status().wire() + "/" + approved.status().wire());
        }
    }

    /**
     * Runs {@code call}; a {@code held} answer (an invocation cut short, e.g. at a standing
     * connection's turnover) is replayed with the same request, as a client must, up to 5 times.
     */
    private static HostResult finished(java.util.function.Supplier<HostResult> call, AtomicLong replays) {
        HostResult result = call.get();
        for (int i = 0; i < 5 && result.status() == HostResult.Status.HELD; i++) {
            replays.incrementAndGet();
            result = call.get();
        }
        return result;
    }
}
