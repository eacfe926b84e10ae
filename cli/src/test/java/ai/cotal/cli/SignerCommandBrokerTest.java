package ai.cotal.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.SpaceProvisioning;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.jwt.Permission;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.keys.NKeyPair;
import ai.cotal.signer.UnixSocketAccountSigner;
import ai.cotal.testbroker.BackendChoice;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.workspace.FileSecretStore;
import ai.cotal.workspace.SecretKeys;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cotal-auth signer} as its own process (SPEC §16): it serves {@code cotal-auth serve
 * --signer-socket} from a root that holds no seed; killed with SIGKILL it is {@code unavailable};
 * started again on the same socket it is used again by the same client.
 */
@Tag("broker")
class SignerCommandBrokerTest {
    private static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";

    @TempDir
    Path dir;

    /** Starts {@code cotal-auth signer} in a JVM of its own and waits until it answers on {@code socket}. */
    private static Process signer(Path root, Path socket, Path log) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        Process process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "ai.cotal.cli.CotalAuth",
                "signer", "--space", "alpha", "--socket", socket.toString(), "--root", root.toString())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        Instant deadline = Instant.now().plusSeconds(60);
        while (true) {
            try {
                UnixSocketAccountSigner.describe(socket, Duration.ofSeconds(1));
                return process;
            } catch (CotalException e) {
                if (!process.isAlive() || Instant.now().isAfter(deadline)) {
                    process.destroyForcibly();
                    throw new AssertionError("the signer did not start: " + Files.readString(log), e);
                }
                Thread.onSpinWait();
            }
        }
    }

    private static String member(UnixSocketAccountSigner remote, String account) {
        UserClaim body = UserClaim.of(Permission.allow(List.of("cotal.alpha.chat." + OWNER + ".laptop.general")),
                Permission.allow(List.of("_INBOX_abcdefghijklmnop-0123456789.>")), account,
                List.of("owner:" + OWNER, "actor:laptop"));
        return NatsJwt.encode(ClaimSet.of(NKeyPair.create(KeyType.USER).publicKey(), "m", body, Instant.now())
                .withExp(Instant.now().getEpochSecond() + 300), remote);
    }

    @Test
    void serveSignsThroughTheSignerProcessFromARootWithoutTheSeed() throws Exception {
        Path signerRoot = Files.createDirectory(dir.resolve("signer-root"));
        Path serviceRoot = Files.createDirectory(dir.resolve("service-root"));
        ProvisionedSpace alpha = new ProvisionedSpace(signerRoot, Clock.systemUTC());
        FileSecretStore service = new FileSecretStore(serviceRoot);
        SpaceProvisioning.forSpace(alpha.auth, alpha.callout).remoteSigner().write(service); // all but the seed
        Path socket = dir.resolve("run").resolve("alpha.sock");
        Process signer = signer(signerRoot, socket, dir.resolve("signer.log"));
        try (NatsBroker nats = NatsBroker.start(BackendChoice.detect(), alpha::config)) {
            CompletableFuture<String> serving = new CompletableFuture<>();
            PrintStream lines = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8) {
                @Override
                public void println(String line) {
                    if (line.contains("serving at")) {
                        serving.complete(line.substring(line.indexOf("http")));
                    }
                }
            };
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            CompletableFuture<Void> stop = new CompletableFuture<>();
            ExecutorService serveThread = Executors.newSingleThreadExecutor();
            CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> CotalAuth.run(new String[] {"serve",
                    "--space", "alpha", "--signer-socket", socket.toString(), "--server", nats.url(), "--root",
                    serviceRoot.toString()}, lines, new PrintStream(err, true, StandardCharsets.UTF_8), stop), serveThread);
            serveThread.shutdown();
            String url = serving.get(60, TimeUnit.SECONDS);
            assertEquals(200, HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url + "/health")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode());
            stop.complete(null);
            assertEquals(0, exit.get(30, TimeUnit.SECONDS), err.toString(StandardCharsets.UTF_8));
        } finally {
            signer.destroy();
            signer.waitFor(30, TimeUnit.SECONDS);
        }
        assertTrue(service.get(SecretKeys.serviceKeysKey("alpha")).isEmpty(), "the service's root holds no seed");
        String audit = Files.readString(signerRoot.resolve(".cotal/signer/" + SecretKeys.spaceSegment("alpha")
                + "/audit.jsonl"));
        for (String profile : List.of("auth-mint", "auth-barrier", "auth-scan", "records-scan", "auth-admin")) {
            assertTrue(audit.contains("\"profile\":\"" + profile + "\""), profile + " signed by the signer process");
        }
        assertTrue(audit.contains("\"event\":\"stopped\""), "SIGTERM stopped it cleanly");
    }

    @Test
    void aKilledSignerIsUnavailableAndItsRestartIsUsedAgainByTheSameClient() throws Exception {
        ProvisionedSpace alpha = new ProvisionedSpace(dir, Clock.systemUTC());
        Path socket = dir.resolve("run").resolve("alpha.sock");
        Path log = dir.resolve("signer.log");
        Process first = signer(dir, socket, log);
        String signingKey = UnixSocketAccountSigner.describe(socket, Duration.ofSeconds(2)).signingKey();
        String account = alpha.auth.account().accountPublicKey();
        try (UnixSocketAccountSigner remote = UnixSocketAccountSigner.builder().socket(socket).publicKey(signingKey).build()) {
            NatsJwt.decode(member(remote, account));
            first.destroyForcibly(); // SIGKILL: no stop record, the socket file stays behind
            first.waitFor(30, TimeUnit.SECONDS);
            assertTrue(Files.exists(socket), "a killed signer leaves its socket");
            CotalException down = org.junit.jupiter.api.Assertions.assertThrows(CotalException.class,
                    () -> member(remote, account));
            assertEquals(ErrorCode.UNAVAILABLE, down.code(), down.getMessage());
            Process second = signer(dir, socket, log);
            try {
                NatsJwt.decode(member(remote, account));
            } finally {
                second.destroy();
                second.waitFor(30, TimeUnit.SECONDS);
            }
        }
        List<String> audit = Files.readAllLines(dir.resolve(".cotal/signer/" + SecretKeys.spaceSegment("alpha")
                + "/audit.jsonl"));
        assertEquals(2, audit.stream().filter(l -> l.contains("\"event\":\"signed\"")).count(),
                "the killed signer's record was on disk before it answered");
        assertEquals(2, audit.stream().filter(l -> l.contains("\"event\":\"started\"")).count());
    }

    @Test
    void usageErrorsExitTwoAndAMissingSeedExitsOne() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream errs = new PrintStream(err, true, StandardCharsets.UTF_8);
        PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        assertEquals(2, CotalAuth.run(new String[] {"signer", "--space", "alpha"}, out, errs));
        assertEquals(2, CotalAuth.run(new String[] {"signer", "--space", "alpha", "--socket", "s", "--root", "r",
                "--teleport", "x"}, out, errs));
        assertEquals(2, CotalAuth.run(new String[] {"serve", "--spaces", "m.json", "--signer-socket", "s", "--server",
                "nats://x", "--root", "r"}, out, errs));
        assertEquals(1, CotalAuth.run(new String[] {"signer", "--space", "alpha", "--socket", dir.resolve("s").toString(),
                "--root", dir.toString()}, out, errs));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("the service keys of space \"alpha\" are missing"),
                err.toString(StandardCharsets.UTF_8));
    }
}
