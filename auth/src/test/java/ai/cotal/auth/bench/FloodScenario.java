package ai.cotal.auth.bench;

import ai.cotal.auth.ActorTokens;
import ai.cotal.auth.Grant;
import ai.cotal.auth.InboxNonce;
import ai.cotal.auth.ActorLedger;
import ai.cotal.auth.ActorRow;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.Granter;
import ai.cotal.auth.ServiceEndpoints;
import ai.cotal.auth.service.AuthService;
import ai.cotal.auth.service.AuthServiceOptions;
import ai.cotal.auth.service.StockPlane;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.Principal;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.internal.kv.StoreNames;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.testbroker.NatsBroker;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StreamInfo;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Flood (issue #16 part 1): {@code scripts/bench FloodScenario [seconds] [off]} (default 30, 5 to
 * 600; loopback only; {@code off} runs the victim alone, the baseline). The stock service of one
 * space with its default write budgets. One member (the flooder) runs two threads of agent
 * exchanges on the public face, one thread of service-endpoint registers under fresh request and
 * instance ids (in process, through the plane, as the authority route does) and four threads of
 * manager-caller connects under fresh nonces with one bearer (a refused connect holds a jnats
 * client for its 1 s connection timeout), as fast as the service answers, for the given time or 1,000,000 attempts. Another member (the
 * victim) meanwhile runs, every 3 s, an agent exchange on the loopback face (on one machine both
 * members are the peer 127.0.0.1, and the public face's refusal throttle is per peer), a
 * manager-caller connect under a fresh nonce and a service-endpoint register (in process,
 * through the plane, as the authority route does). Prints, per member and kind, attempts,
 * successes, refusals and p50/p99, and the bytes and messages of the auth, issued and accepted
 * stores before and after; exits 1 when any victim operation did not succeed.
 */
public final class FloodScenario {
    private static final String FLOODER = "u_floodfloodfloodfloodfloodf";
    private static final String VICTIM = "u_victimvictimvictimvictimvi";
    private static final String SECRET = "flood-agent-secret";
    private static final long MAX_ATTEMPTS = 1_000_000;
    private static final List<String> STORES = List.of("auth", "issued", "accepted");

    private FloodScenario() {
    }

    /** Attempts, successes and latencies of one member's one kind of operation. */
    private static final class Tally {
        final AtomicLong attempts = new AtomicLong();
        final AtomicLong ok = new AtomicLong();
        final List<Long> nanos = java.util.Collections.synchronizedList(new ArrayList<>());
        final Map<String, AtomicLong> refusals = new ConcurrentHashMap<>();

        void record(long start, String refusal) {
            attempts.incrementAndGet();
            if (nanos.size() < 200_000) {
                nanos.add(System.nanoTime() - start);
            }
            if (refusal == null) {
                ok.incrementAndGet();
            } else {
                refusals.computeIfAbsent(refusal.length() > 110 ? refusal.substring(0, 110) + "..." : refusal,
                        k -> new AtomicLong()).incrementAndGet();
            }
        }

        String row(String who, String kind) {
            long[] sorted;
            synchronized (nanos) {
                sorted = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
            }
            double p50 = sorted.length == 0 ? 0 : sorted[sorted.length / 2] / 1e6;
            double p99 = sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) (sorted.length * 0.99))] / 1e6;
            long n = attempts.get();
            return String.format("| %s | %s | %,d | %,d | %.1f%% | %.1f | %.1f |", who, kind, n, ok.get(),
                    n == 0 ? 0 : 100.0 * ok.get() / n, p50, p99);
        }
    }

    public static void main(String[] args) throws Exception {
        int seconds = Math.max(5, Math.min(600, args.length > 0 ? Integer.parseInt(args[0]) : 30));
        int flooders = args.length > 1 && args[1].equals("off") ? 0 : 7;
        Clock clock = Clock.systemUTC();
        SpaceAuth auth = SpaceAuth.create("alpha", clock);
        CalloutAuth callout = CalloutAuth.create("alpha", auth.broker(), auth.account().accountPublicKey(), clock);
        InMemorySecretStore store = BenchSpace.store(auth, callout);
        java.nio.file.Path stateDir = Files.createTempDirectory("flood-scenario");
        try (NatsBroker nats = BenchSpace.broker(auth, callout.jwt());
             AuthService service = AuthService.open(StockPlane.options(nats.url(), "alpha", stateDir, store)
                     .serviceEndpoints(ServiceEndpoints.normal()).build(), AuthServiceOptions.builder()
                     .publicAddress(new InetSocketAddress("127.0.0.1", 0)).build())) {
            String publicUrl = service.publicUrl().orElseThrow();
            String capability = new com.fasterxml.jackson.databind.ObjectMapper().readTree(stateDir.resolve(
                    ai.cotal.auth.exchange.TokenExchange.DISCOVERY_FILE).toFile()).path("capability").asText();
            String flooderBearer = setUp(service, FLOODER);
            String victimBearer = setUp(service, VICTIM);
            ai.cotal.auth.TestManager.forOwner(service.plane(), nats, FLOODER).close(); // manager-callers need one (SPEC §14.4)
            ai.cotal.auth.TestManager.forOwner(service.plane(), nats, VICTIM).close();
            Granter victim = new Granter.Owner(VICTIM, "laptop");
            Granter flooder = new Granter.Owner(FLOODER, "laptop");
            HttpClient http = HttpClient.newHttpClient();
            Map<String, long[]> before = stores(nats, auth);
            long mark = nats.log().mark();

            Tally floodExchange = new Tally();
            Tally floodConnect = new Tally();
            Tally floodRegister = new Tally();
            Tally victimExchange = new Tally();
            Tally victimConnect = new Tally();
            Tally victimRegister = new Tally();
            AtomicLong ids = new AtomicLong(System.nanoTime());
            AtomicLong total = new AtomicLong();
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < flooders; t++) {
                boolean exchanges = t < 2;
                boolean registers = t == 2;
                Thread thread = new Thread(() -> {
                    while (System.nanoTime() < end && total.incrementAndGet() <= MAX_ATTEMPTS) {
                        long start = System.nanoTime();
                        if (exchanges) {
                            floodExchange.record(start, exchange(http, publicUrl, null, FLOODER));
                        } else if (registers) {
                            floodRegister.record(start, register(service, flooder, ids));
                        } else {
                            floodConnect.record(start, connect(nats, callout, flooderBearer,
                                    InboxNonce.of(Principal.of(FLOODER, "laptop"), "flood" + ids.incrementAndGet() + "-nonce"),
                                    Duration.ofSeconds(1)));
                        }
                    }
                }, "flooder-" + t);
                thread.start();
                threads.add(thread);
            }
            long startedAt = System.nanoTime();
            int round = 0;
            while (System.nanoTime() < end && total.get() <= MAX_ATTEMPTS) {
                long start = System.nanoTime();
                victimExchange.record(start, exchange(http, service.loopbackUrl(), capability, VICTIM));
                start = System.nanoTime();
                victimConnect.record(start, connect(nats, callout, victimBearer,
                        InboxNonce.of(Principal.of(VICTIM, "laptop"), "victim" + ids.incrementAndGet() + "-nonce"),
                        Duration.ofSeconds(5)));
                start = System.nanoTime();
                victimRegister.record(start, register(service, victim, ids));
                round++;
                long next = startedAt + round * 3_000_000_000L;
                Thread.sleep(Math.max(0, (next - System.nanoTime()) / 1_000_000)); // the victim's pace: one round per 3 s
            }
            for (Thread thread : threads) {
                thread.join();
            }
            Map<String, long[]> after = stores(nats, auth);

            System.out.printf("%n%s for %d s (default budgets: 60 credentials, 30 issuances and 30"
                    + " service-endpoint requests per principal per minute, 10x per space)%n%n", flooders == 0 ? "baseline (no flooder)" : "flood", seconds);
            System.out.println("| member | operation | attempts | succeeded | success rate | p50 (ms) | p99 (ms) |");
            System.out.println("|---|---|---|---|---|---|---|");
            System.out.println(floodExchange.row("flooder", "`POST /exchange` (agent arm, public face)"));
            System.out.println(floodConnect.row("flooder", "manager-caller connect, fresh nonce"));
            System.out.println(floodRegister.row("flooder", "service-endpoint register, fresh request id"));
            System.out.println(victimExchange.row("victim", "`POST /exchange` (agent arm, loopback face)"));
            System.out.println(victimConnect.row("victim", "manager-caller connect, fresh nonce"));
            System.out.println(victimRegister.row("victim", "service-endpoint register"));
            System.out.println();
            System.out.println("| store | bytes before | bytes after | messages before | messages after | max_bytes |");
            System.out.println("|---|---|---|---|---|---|");
            for (String kind : STORES) {
                long[] b = before.get(kind);
                long[] a = after.get(kind);
                System.out.printf("| %s | %,d | %,d | %,d | %,d | %,d |%n", kind, b[0], a[0], b[1], a[1], a[2]);
            }
            System.out.println();
            floodExchange.refusals.forEach((k, v) -> System.out.println("flooder exchange refused " + v + "x: " + k));
            floodConnect.refusals.forEach((k, v) -> System.out.println("flooder connect refused " + v + "x: " + k));
            floodRegister.refusals.forEach((k, v) -> System.out.println("flooder register refused " + v + "x: " + k));
            System.out.println("broker log carries the signed issuance-budget refusal: "
                    + nats.log().containsSince(mark, "issuance budget: this principal made"));
            List<Tally> victims = List.of(victimExchange, victimConnect, victimRegister);
            victims.forEach(v -> v.refusals.forEach((k, n) -> System.out.println("VICTIM refused " + n + "x: " + k)));
            boolean held = victims.stream().allMatch(v -> v.attempts.get() > 0 && v.ok.get() == v.attempts.get());
            System.out.println(held ? "flood: every victim operation succeeded" : "flood: FAILED (a victim operation failed)");
            if (!held) {
                System.exit(1);
            }
        }
    }

    /** Grants {@code owner} a managed agent (for the exchange) and a laptop; returns a manager-caller bearer. */
    private static String setUp(AuthService service, String owner) throws Exception {
        ActorLedger ledger = service.plane().ledger();
        Grant grant = Grant.of(List.of("chat"), List.of("general"), List.of("general"));
        ledger.grantManagedActor(Principal.of(owner, "agent"), grant, ActorTokens.tokenHash(SECRET), ActorTokens.newLifecycleUid());
        ActorRow laptop = ledger.grantActor(Principal.of(owner, "laptop"), grant);
        CredentialId credential = service.plane().credentials().mint(Principal.of(owner, "laptop"), laptop.lifecycleUid()).id();
        return service.plane().bearers().issue(BearerRequest.managerCaller(Principal.of(owner, "laptop"), List.of("chat"),
                laptop.lifecycleUid(), credential, Duration.ofMinutes(14)));
    }

    /** One agent exchange (with the loopback capability when given); null when it answered 200, else the answer. */
    private static String exchange(HttpClient http, String url, String capability, String owner) {
        try {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url + "/exchange"));
            if (capability != null) {
                request.header("Authorization", "Bearer " + capability);
            }
            HttpResponse<String> response = http.send(request
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"owner\":\""
                            + owner + "\",\"actor\":\"agent\",\"actorToken\":\"" + SECRET + "\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? null : response.statusCode() + " " + response.body();
        } catch (Exception e) {
            return e.getClass().getSimpleName();
        }
    }

    /** One manager-caller connect through the callout; null when admitted. */
    private static String connect(NatsBroker nats, CalloutAuth callout, String bearer, String nonce, Duration timeout) {
        Options options = new Options.Builder().server(nats.url()).noReconnect().connectionTimeout(timeout)
                .maxControlLine(ServerConfig.MAX_CONTROL_LINE).authHandler(callout.sentinelCreds().authHandler())
                .token(bearer.toCharArray()).connectionName(nonce).inboxPrefix(InboxNonce.inboxPrefix(nonce))
                .errorListener(new io.nats.client.ErrorListener() { }).build();
        try {
            Nats.connect(options).close();
            return null;
        } catch (Exception e) {
            return "connect refused (" + e.getClass().getSimpleName() + ")";
        }
    }

    private static String register(AuthService service, Granter owner, AtomicLong ids) {
        String instance = String.format("%026d", ids.incrementAndGet() % 1_000_000_000_000_000L);
        try {
            HostResult result = service.plane().serviceEndpoints().orElseThrow().admit(owner, new HostRequest.Register(
                    "flood-req-" + ids.incrementAndGet(), "victim-svc", instance, "sha256:" + "c".repeat(64), List.of("ask")),
                    Instant.now().plusSeconds(30));
            return result.status() == HostResult.Status.PENDING ? null : result.status().wire() + " " + result.reason();
        } catch (RuntimeException e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    /** {bytes, messages, max_bytes} of each watched store, read with a fresh provisioner credential. */
    private static Map<String, long[]> stores(NatsBroker nats, SpaceAuth auth) throws Exception {
        Creds creds = Creds.mint(auth, Identity.create(), CredentialProfile.PROVISIONER, MintOptions.defaults());
        Map<String, long[]> out = new java.util.LinkedHashMap<>();
        try (Connection c = NatsConnector.builder().server(nats.url()).creds(creds).label("flood-stores").build().connect()) {
            for (String kind : STORES) {
                StreamInfo info = c.jetStreamManagement().getStreamInfo(StoreNames.bucketStream(kind, "alpha"));
                out.put(kind, new long[] {info.getStreamState().getByteCount(), info.getStreamState().getMsgCount(),
                        info.getConfiguration().getMaxBytes()});
            }
        }
        return out;
    }
}
