package ai.cotal.auth.bench;

import ai.cotal.auth.internal.plane.AuthorityPlaneImpl;
import ai.cotal.auth.Grant;
import ai.cotal.auth.InboxNonce;
import ai.cotal.auth.ActorRow;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.internal.callout.AuthCallout;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.internal.callout.CalloutOptions;
import ai.cotal.auth.exchange.ExchangeOptions;
import ai.cotal.auth.exchange.TokenExchange;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.Principal;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.NatsBroker;
import io.nats.client.Options;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * Slow clients at the connection cap (issue #16 part 2): {@code scripts/bench SlowClientScenario
 * [N] [perThread]} (1200 and 150 by default). One process runs the plane, the auth callout and
 * both exchange faces on loopback with their defaults (256 connections per face, 32 per peer,
 * 10 s read deadline). Good clients (8 threads) connect through the auth callout with a bearer
 * and close, first with no attack, then while N slow connections (half per face, from 127.0.1.x, 32 per source, one header byte a second,
 * reopened when cut) hold both faces at their cap; three interleaved rounds of both. Prints each
 * run's rate, p50 and p99 and the median attacked p99's ratio to the median no-attack p99
 * (target: within 2x), and what the faces and the process held. The attacked run starts
 * once the caps have been held past one read deadline, so connections are being cut and reopened
 * while it runs. Bounded: six measured runs; per round at most 60 s for the attack to reach the
 * caps and 11 s held before measuring.
 */
public final class SlowClientScenario {
    private static final int THREADS = 8;
    private static final int ROUNDS = 3;
    /** The faces' default {@code maxConnections}. */
    private static final int CAP = 256;

    private SlowClientScenario() {
    }

    public static void main(String[] args) throws Exception {
        int attackers = args.length > 0 ? Integer.parseInt(args[0]) : 1200;
        int perThread = args.length > 1 ? Integer.parseInt(args[1]) : 150;
        Clock clock = Clock.systemUTC();
        SpaceAuth auth = SpaceAuth.create("alpha", clock);
        CalloutAuth callout = CalloutAuth.create("alpha", auth.broker(), auth.account().accountPublicKey(), clock);
        InMemorySecretStore store = BenchSpace.store(auth, callout);
        Path stateDir = Files.createTempDirectory("slow-client-scenario");
        try (NatsBroker nats = BenchSpace.broker(auth, callout.jwt());
             AuthAuthorityPlane plane = AuthAuthorityPlane.open(AuthPlaneOptions.builder().server(nats.url()).space("alpha")
                     .stateDir(stateDir).secretStore(store).signer(auth.strip()).build());
             AuthCallout responder = AuthCallout.start(CalloutOptions.builder().server(nats.url()).callout(callout)
                     .plane(((AuthorityPlaneImpl) plane).calloutAuthority()).signer(auth.strip()).build());
             TokenExchange exchange = TokenExchange.start(ExchangeOptions.builder().plane(plane).stateDir(stateDir)
                     .publicAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build())) {
            String owner = "u_abcdefghijklmnopqrstuvwxyz";
            ActorRow row = plane.ledger().grantActor(Principal.of(owner, "bench"), Grant.of(List.of("chat"),
                    List.of("general"), List.of("general")));
            CredentialId credential = plane.credentials().mint(Principal.of(owner, "bench"), row.lifecycleUid()).id();
            String bearer = plane.bearers().issue(BearerRequest.member(Principal.of(owner, "bench"), List.of("chat"),
                    row.lifecycleUid(), credential, Duration.ofMinutes(15)));
            AtomicLong nonces = new AtomicLong();
            IntFunction<Options> connect = i -> {
                String nonce = InboxNonce.of(Principal.of(owner, "bench"), "slow" + nonces.incrementAndGet() + "-nonce");
                return new Options.Builder().server(nats.url()).noReconnect().connectionTimeout(Duration.ofSeconds(10))
                        .maxControlLine(ServerConfig.MAX_CONTROL_LINE).authHandler(callout.sentinelCreds().authHandler())
                        .token(bearer.toCharArray()).connectionName(nonce).inboxPrefix(InboxNonce.inboxPrefix(nonce)).build();
            };
            Concurrent.run(THREADS, 100, (t, i) -> CalloutScenario.connectOnly(connect.apply(i))); // warm-up
            long fdsBefore = openFiles();
            int publicPort = URI.create(exchange.publicUrl().orElseThrow()).getPort();
            int loopbackPort = URI.create(exchange.loopbackUrl()).getPort();
            Concurrent.Task connectAndClose = (t, i) -> CalloutScenario.connectOnly(connect.apply(i));
            List<Concurrent.Result> quiet = new java.util.ArrayList<>();
            List<Concurrent.Result> attacked = new java.util.ArrayList<>();
            List<String> notes = new java.util.ArrayList<>();
            for (int round = 0; round < ROUNDS; round++) {
                quiet.add(Concurrent.run(THREADS, perThread, connectAndClose));
                try (SlowAttack onPublic = new SlowAttack(publicPort, attackers / 2, 32);
                     SlowAttack onLoopback = new SlowAttack(loopbackPort, attackers - attackers / 2, 32)) {
                    long until = System.nanoTime() + 60_000_000_000L;
                    while (System.nanoTime() < until && (exchange.loopbackConnections() < CAP
                            || exchange.publicConnections() < CAP)) {
                        Thread.sleep(100); // polling the faces' counts until the attack holds both caps (bounded)
                    }
                    Thread.sleep(11_000); // hold the caps past one read deadline: cut-and-reopen churn runs throughout
                    int[] atCap = {exchange.loopbackConnections(), exchange.publicConnections()};
                    attacked.add(Concurrent.run(THREADS, perThread, connectAndClose));
                    int[] atEnd = {exchange.loopbackConnections(), exchange.publicConnections()};
                    notes.add(String.format("round %d: %d slow connections held (%d public, %d loopback), %d opened,"
                            + " %d closed by the server; faces (loopback, public) %d, %d at the start of the attacked run,"
                            + " %d, %d at its end; process file descriptors %d before, %d during", round + 1,
                            onPublic.held() + onLoopback.held(), onPublic.held(), onLoopback.held(),
                            onPublic.opened.get() + onLoopback.opened.get(),
                            onPublic.closedByServer.get() + onLoopback.closedByServer.get(), atCap[0], atCap[1], atEnd[0],
                            atEnd[1], fdsBefore, openFiles()));
                }
            }
            System.out.println();
            notes.forEach(System.out::println);
            System.out.printf("faces' totals: closed at the peer cap %d, cut at the read deadline %d%n",
                    exchange.counts().closedAtPeerCap(), exchange.counts().cutAtReadDeadline());
            Concurrent.Result floor = median(quiet);
            System.out.println("\n| callout connect (" + THREADS + " threads, " + THREADS * perThread
                    + " each run) | connects/s | p50 ms | p99 ms | p99 ratio to the median no-attack p99 |");
            System.out.println("|---|---|---|---|---|");
            for (int round = 0; round < ROUNDS; round++) {
                System.out.println(row("round " + (round + 1) + ": no attack", quiet.get(round), floor));
                System.out.println(row("round " + (round + 1) + ": " + attackers + " slow connections, both faces at their"
                        + " cap", attacked.get(round), floor));
            }
            double ratio = median(attacked).percentileMillis(0.99) / floor.percentileMillis(0.99);
            System.out.printf("%nmedian p99: no attack %.2f ms, attacked %.2f ms; ratio %.2fx (target: within 2x): %s%n",
                    floor.percentileMillis(0.99), median(attacked).percentileMillis(0.99), ratio,
                    ratio <= 2 ? "met" : "NOT met");
        }
    }

    /** The run with the median p99 (interleaved rounds damp a shared machine's noise). */
    private static Concurrent.Result median(List<Concurrent.Result> runs) {
        List<Concurrent.Result> sorted = new java.util.ArrayList<>(runs);
        sorted.sort(java.util.Comparator.comparingDouble(r -> r.percentileMillis(0.99)));
        return sorted.get(sorted.size() / 2);
    }

    private static String row(String name, Concurrent.Result run, Concurrent.Result floor) {
        return String.format("| %s | %.0f | %.2f | %.2f | %.2fx |", name, run.rate(), run.percentileMillis(0.5),
                run.percentileMillis(0.99), run.percentileMillis(0.99) / floor.percentileMillis(0.99));
    }

    private static long openFiles() {
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        } catch (java.io.IOException e) {
            return -1;
        }
    }
}
