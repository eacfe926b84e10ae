package ai.cotal.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.Grant;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.InboxNonce;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.id.Principal;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.workspace.SecretKeys;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** {@code cotal-auth callout-host}: answers a manifest's spaces, writes the applied copy, re-applies a changed manifest. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class CalloutHostCommandBrokerTest {
    private static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";

    private final Clock clock = Clock.systemUTC();
    private final BlockingQueue<String> outLines = new LinkedBlockingQueue<>();
    private final BlockingQueue<String> errLines = new LinkedBlockingQueue<>();

    @TempDir
    Path root;

    private static PrintStream lines(BlockingQueue<String> into) {
        return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8) {
            @Override
            public void println(String line) {
                into.add(line);
            }
        };
    }

    /** The next line containing {@code text}, skipping others; fails after 30 s. */
    private static String await(BlockingQueue<String> lines, String text) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (String line; (line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) != null; ) {
            if (line.contains(text)) {
                return line;
            }
        }
        throw new AssertionError("no line containing \"" + text + "\"");
    }

    @Test
    void usageMistakesExitTwo() {
        for (List<String> args : List.of(List.of("--spaces"), List.of("--bogus", "x"), List.of("--spaces", "m.json"),
                List.of("--spaces", "m.json", "--spaces", "n.json", "--server", "nats://a", "--root", "r"))) {
            errLines.clear();
            assertEquals(2, CalloutHostCommand.run(args, lines(outLines), lines(errLines), new CompletableFuture<>()),
                    args.toString());
            assertNotNull(errLines.stream().filter(l -> l.startsWith("usage: cotal-auth callout-host")).findAny()
                    .orElse(null), args.toString());
        }
    }

    @Test
    void calloutHostAnswersTheManifestsSpacesAndReappliesItWhenItChanges(NatsBrokers brokers) throws Exception {
        ProvisionedSpace alpha = new ProvisionedSpace(root, clock);
        NatsBroker nats = brokers.start(alpha::config);
        String bearer;
        // the plane ran once where serve --spaces keeps alpha's lane: the ledger the callout host reads
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(AuthPlaneOptions.builder().server(nats.url()).space("alpha")
                .stateDir(root.resolve(".cotal/auth-host").resolve(SecretKeys.spaceSegment("alpha"))).secretStore(alpha.secrets)
                .signer(alpha.auth.strip()).clock(clock).build())) {
            ActorRow row = plane.ledger().grantActor(Principal.of(OWNER, "laptop"), Grant.of(List.of("chat"),
                    List.of("general"), List.of()));
            bearer = plane.bearers().issue(BearerRequest.member(Principal.of(OWNER, "laptop"), List.of("chat"), row.lifecycleUid(),
                    plane.credentials().mint(Principal.of(OWNER, "laptop"), row.lifecycleUid()).id(), Duration.ofMinutes(5)));
        }
        Path manifest = Files.writeString(root.resolve("replicas.json"), "{\"ver\":1,\"spaces\":[{\"space\":\"alpha\"}]}");
        Path applied = root.resolve("replicas.json.applied");

        CompletableFuture<Void> stop = new CompletableFuture<>();
        ExecutorService hostThread = Executors.newSingleThreadExecutor(); // the command blocks until stopped
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> CotalAuth.run(new String[] {"callout-host",
                "--spaces", manifest.toString(), "--server", nats.url(), "--root", root.toString(), "--metrics", "0"},
                lines(outLines),
                lines(errLines), stop), hostThread);
        hostThread.shutdown();
        try {
            String metrics = await(outLines, "metrics at"); // printed before the host starts
            await(outLines, "answering for [alpha], refused []");
            assertArrayEquals(Files.readAllBytes(manifest), Files.readAllBytes(applied));
            String nonce = InboxNonce.forPrincipal(Principal.of(OWNER, "laptop"));
            try (Connection client = Nats.connect(new Options.Builder().server(nats.url()).noReconnect()
                    .connectionTimeout(Duration.ofSeconds(5)).maxControlLine(ServerConfig.MAX_CONTROL_LINE)
                    .authHandler(alpha.callout.sentinelCreds().authHandler()).token(bearer.toCharArray()).connectionName(nonce)
                    .inboxPrefix(InboxNonce.inboxPrefix(nonce)).build())) {
                assertEquals(Connection.Status.CONNECTED, client.getStatus(), "the command's lane answers alpha's callout");
            }
            String scrape = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create(metrics.substring(metrics.indexOf("http")))).GET().build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString()).body();
            assertTrue(scrape.lines().anyMatch(l -> l.startsWith("cotal_auth_callout_decisions_total{")
                    && l.contains("outcome=\"admitted\"") && l.contains("space=\"alpha\"") && l.endsWith(" 1.0")),
                    "the replica lane's admit is scraped with its space:\n" + scrape);

            // beta has no service keys here: named on stderr, retried, and the change is still applied
            Files.writeString(manifest, "{\"ver\":1,\"spaces\":[{\"space\":\"alpha\"},{\"space\":\"beta\"}]}");
            await(outLines, "answering for [alpha], refused [beta]");
            assertTrue(await(errLines, "space beta refused").contains("retried every 5 s"));
            assertArrayEquals(Files.readAllBytes(manifest), Files.readAllBytes(applied), "the applied copy follows");

            byte[] before = Files.readAllBytes(applied);
            Files.writeString(manifest, "{\"ver\":1,\"spaces\":[{\"space\":\"alpha\",\"serviceEndpoints\":true}]}");
            assertTrue(await(errLines, "manifest not applied").contains("spaces[0].serviceEndpoints"));
            assertArrayEquals(before, Files.readAllBytes(applied), "a refused manifest leaves the applied copy");
        } finally {
            stop.complete(null);
        }
        assertEquals(0, exit.get(30, TimeUnit.SECONDS));
    }
}
