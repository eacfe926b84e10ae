package ai.cotal.auth.bench;

import ai.cotal.auth.internal.plane.AuthorityPlaneImpl;
import ai.cotal.auth.ActorRow;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.Grant;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.InboxNonce;
import ai.cotal.auth.internal.callout.AuthCallout;
import ai.cotal.auth.internal.callout.CalloutOptions;
import ai.cotal.auth.micrometer.MicrometerSink;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.Principal;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.NatsBroker;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A connect flood with the public sentinel credential and no bearer (SPEC §13.16 "Lanes"):
 * {@code scripts/bench CalloutFloodScenario [inFlight] [seconds]} (default 2,000 and 60). One plane
 * and one responder on a loopback broker; a {@link SentinelFlood} process of its own keeps
 * {@code inFlight} raw bearer-less connects under way; meanwhile a member (the victim) connects with its own valid
 * bearer, one connect after another (each closed, 200 ms apart; jnats' connection timeout 5 s,
 * the broker's authorization timeout 2 s decides). Prints the victim's success rate and latency
 * before and under the flood, the flood's connects by answer, and the responder's decisions (its
 * Micrometer counter) by outcome and reason.
 */
public final class CalloutFloodScenario {
    private static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";
    private static final int VICTIM_TIMEOUT = Integer.getInteger("victimTimeout", 5);

    private CalloutFloodScenario() {
    }

    public static void main(String[] args) throws Exception {
        int inFlight = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 60;
        Clock clock = Clock.systemUTC();
        SpaceAuth auth = SpaceAuth.create("alpha", clock);
        CalloutAuth callout = CalloutAuth.create("alpha", auth.broker(), auth.account().accountPublicKey(), clock);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (NatsBroker nats = BenchSpace.broker(auth, callout.jwt());
             AuthAuthorityPlane plane = AuthAuthorityPlane.open(AuthPlaneOptions.builder().server(nats.url()).space("alpha")
                     .stateDir(Files.createTempDirectory("callout-flood")).secretStore(BenchSpace.store(auth, callout))
                     .signer(auth.strip()).build());
             AuthCallout responder = AuthCallout.start(CalloutOptions.builder().server(nats.url()).callout(callout)
                     .plane(((AuthorityPlaneImpl) plane).calloutAuthority()).signer(auth.strip()).meterSink(MicrometerSink.of(registry)).build())) {
            ActorRow row = plane.ledger().grantActor(Principal.of(OWNER, "victim"), Grant.of(List.of("chat"),
                    List.of("general"), List.of("general")));
            CredentialId credential = plane.credentials().mint(Principal.of(OWNER, "victim"), row.lifecycleUid()).id();
            String bearer = plane.bearers().issue(BearerRequest.member(Principal.of(OWNER, "victim"), List.of("chat"),
                    row.lifecycleUid(), credential, Duration.ofMinutes(15)));
            AtomicLong nonces = new AtomicLong();
            Runnable victim = () -> {
                String nonce = InboxNonce.of(Principal.of(OWNER, "victim"), "victim-" + nonces.incrementAndGet() + "-x");
                try {
                    CalloutScenario.connectOnly(new io.nats.client.Options.Builder().server(nats.url()).noReconnect()
                            .connectionTimeout(Duration.ofSeconds(VICTIM_TIMEOUT)).maxControlLine(ai.cotal.core.config.ServerConfig.MAX_CONTROL_LINE)
                            .authHandler(callout.sentinelCreds().authHandler()).token(bearer.toCharArray())
                            .connectionName(nonce).inboxPrefix(InboxNonce.inboxPrefix(nonce)).build());
                } catch (Exception e) {
                    throw new IllegalStateException(e.getMessage());
                }
            };
            Tally alone = victimFor(victim, 10);
            URI url = URI.create(nats.url());
            java.nio.file.Path creds = Files.createTempFile("sentinel", ".creds");
            Files.writeString(creds, callout.sentinelCreds().text());
            Process attack = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                    System.getProperty("java.class.path"), SentinelFlood.class.getName(), url.getHost(),
                    String.valueOf(url.getPort()), String.valueOf(inFlight), creds.toString(),
                    String.valueOf(seconds + 5)).redirectErrorStream(true).start();
            List<String> lines = java.util.Collections.synchronizedList(new ArrayList<>());
            Thread reader = new Thread(() -> new java.io.BufferedReader(new java.io.InputStreamReader(
                    attack.getInputStream(), java.nio.charset.StandardCharsets.UTF_8)).lines().forEach(line -> {
                        lines.add(line);
                        if (line.startsWith("progress")) {
                            System.out.printf("%s; requests delivered to the responder %,d, decided %,.0f%n", line,
                                    responder.connection().getStatistics().getInMsgs(), registry
                                            .find("cotal.auth.callout.decisions").counters().stream()
                                            .mapToDouble(Counter::count).sum());
                        }
                    }), "flood-output");
            reader.start();
            Thread.sleep(5_000); // the flood reaches its in-flight count
            Tally underFlood = victimFor(victim, seconds);
            attack.waitFor();
            reader.join();
            Files.delete(creds);
            String last = lines.stream().filter(l -> l.startsWith("counts ")).findFirst().orElse("counts [0, 0, 0, 0, 0]");
            List<Long> flood = java.util.Arrays.stream(last.substring("counts [".length(), last.length() - 1).split(", "))
                    .map(Long::parseLong).toList();
            System.out.printf("%n%,d bearer-less sentinel connects in flight, %d s (one responder: %d workers)%n%n",
                    inFlight, seconds, 4);
            System.out.println("| victim (own valid bearer) | connects | succeeded | success rate | p50 ms | p99 ms |");
            System.out.println("|---|---|---|---|---|---|");
            System.out.println(alone.row("alone (10 s)"));
            System.out.println(underFlood.row("under the flood"));
            System.out.printf("%n| flood | started | refused < 1 s | refused later (timeout) | admitted | failed |%n"
                    + "|---|---|---|---|---|---|%n| sentinel, no bearer | %,d | %,d | %,d | %,d | %,d |%n",
                    flood.get(0), flood.get(1), flood.get(2), flood.get(3), flood.get(4));
            Map<String, Double> decisions = new TreeMap<>();
            for (Counter counter : registry.find("cotal.auth.callout.decisions").counters()) {
                decisions.merge(counter.getId().getTag("outcome") + " / " + counter.getId().getTag("reason"),
                        counter.count(), Double::sum);
            }
            System.out.println("\n| responder decision (outcome / reason) | count |\n|---|---|");
            decisions.forEach((k, v) -> System.out.printf("| %s | %,.0f |%n", k, v));
            io.micrometer.core.instrument.Timer admittedLatency = registry.find("cotal.auth.callout.latency")
                    .tag("outcome", "admitted").timer();
            if (admittedLatency != null) {
                System.out.printf("%nadmitted: the responder's own latency (arrival to sealed answer), mean %.1f ms, max %.1f ms%n",
                        admittedLatency.mean(java.util.concurrent.TimeUnit.MILLISECONDS),
                        admittedLatency.max(java.util.concurrent.TimeUnit.MILLISECONDS));
            }
        }
    }

    /** The victim's connects for {@code seconds}: outcomes and latencies. */
    private static Tally victimFor(Runnable victim, int seconds) throws InterruptedException {
        Tally tally = new Tally();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < end) {
            long start = System.nanoTime();
            try {
                victim.run();
                tally.ok++;
            } catch (IllegalStateException e) {
                tally.failures.merge(e.getMessage(), 1, Integer::sum);
            }
            tally.nanos.add(System.nanoTime() - start);
            Thread.sleep(200);
        }
        if (!tally.failures.isEmpty()) {
            System.out.println("victim failures: " + tally.failures);
        }
        return tally;
    }

    private static final class Tally {
        final List<Long> nanos = new ArrayList<>();
        final Map<String, Integer> failures = new TreeMap<>();
        int ok;

        String row(String name) {
            long[] sorted = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
            double p50 = sorted.length == 0 ? 0 : sorted[sorted.length / 2] / 1e6;
            double p99 = sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * 0.99) - 1)] / 1e6;
            return String.format("| %s | %d | %d | %.1f%% | %.0f | %.0f |", name, sorted.length, ok,
                    sorted.length == 0 ? 0 : 100.0 * ok / sorted.length, p50, p99);
        }
    }
}
