package ai.cotal.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.IdpPin;
import ai.cotal.testbroker.BackendChoice;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.oidc.OidcTestProvider;
import ai.cotal.workspace.CotalRoot;
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
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cotal-auth command: usage, serve and service-endpoint on a provisioned root, and the demo end to end. */
@Tag("broker")
class CotalAuthTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return CotalAuth.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void anUnknownCommandPrintsUsage() {
        assertEquals(2, run("teleport"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("usage: cotal-auth demo"));
    }

    @Test
    void serveRunsAProvisionedSpaceUntilStoppedAndRefusesAMixedSetting(@TempDir Path root) throws Exception {
        assertEquals(2, run("serve", "--spaces", "m.json", "--service-endpoints", "--server", "nats://x", "--root", "r"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("manifest entry"));
        ProvisionedSpace alpha = new ProvisionedSpace(root, Clock.systemUTC());
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
            CompletableFuture<Void> stop = new CompletableFuture<>();
            // serve blocks until stopped: its own thread, not the common pool (one worker on 2 cores on JDK 25)
            ExecutorService serveThread = Executors.newSingleThreadExecutor();
            CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> CotalAuth.run(new String[] {"serve",
                    "--space", "alpha", "--service-endpoints", "--server", nats.url(), "--root", root.toString()}, lines,
                    new PrintStream(err, true, StandardCharsets.UTF_8), stop), serveThread);
            serveThread.shutdown();
            String url = serving.get(30, TimeUnit.SECONDS);
            HttpResponse<String> health = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url
                    + "/health")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, health.statusCode());
            Path stateDir = CotalRoot.userAuthStateDir(root, "alpha");
            assertTrue(Files.exists(stateDir.resolve("auth-service.json")));
            try (OidcTestProvider idp = new OidcTestProvider()) {
                IdpPin.pin(stateDir, idp.stockUrl());
                Path token = root.resolve("token");
                Files.writeString(token, idp.stockToken("alice"));
                out.reset();
                assertEquals(1, run("service-endpoint", "--space", "alpha", "--state", stateDir.toString(), "--token-file",
                        token.toString(), "{\"kind\":\"name-read\",\"name\":\"forecast\"}"),
                        err.toString());
                assertTrue(out.toString(StandardCharsets.UTF_8).contains("\"status\":\"denied\""), out.toString());
                assertEquals(2, run("service-endpoint", "--space", "alpha", "--state", stateDir.toString(), "--token-file",
                        token.toString(), "{\"kind\":\"name-read\",\"name\":\"Not A Label\"}"));
                // the same service, asked as another space's: nothing is sent
                out.reset();
                assertEquals(1, run("service-endpoint", "--space", "beta", "--state", stateDir.toString(), "--token-file",
                        token.toString(), "{\"kind\":\"name-read\",\"name\":\"forecast\"}"));
                assertTrue(err.toString(StandardCharsets.UTF_8).contains("is not the auth service of space \"beta\""),
                        err.toString(StandardCharsets.UTF_8));
            }
            stop.complete(null);
            assertEquals(0, exit.get(30, TimeUnit.SECONDS), err.toString(StandardCharsets.UTF_8));
            assertTrue(Files.notExists(stateDir.resolve("auth-service.json")), "a stopped service leaves no capability file");
            assertPrivate(root.resolve(".cotal"));
        }
    }

    @Test
    void serveTakesAnOidcIssuerAndClientIdTogetherAndPinsAtStart(@TempDir Path root) throws Exception {
        assertEquals(2, run("serve", "--space", "alpha", "--oidc-issuer", "https://idp.example", "--server", "nats://x",
                "--root", "r"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("go together"), err.toString(StandardCharsets.UTF_8));
        assertEquals(2, run("serve", "--spaces", "m.json", "--oidc-issuer", "https://idp.example", "--oidc-client-id", "c",
                "--server", "nats://x", "--root", "r"));
        assertEquals(1, run("serve", "--space", "alpha", "--oidc-issuer", "http://idp.example", "--oidc-client-id", "c",
                "--server", "nats://x", "--root", root.toString()));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("oidcIssuer: must be https"), err.toString(StandardCharsets.UTF_8));
        ProvisionedSpace alpha = new ProvisionedSpace(root, Clock.systemUTC());
        try (NatsBroker nats = NatsBroker.start(BackendChoice.detect(), alpha::config)) {
            err.reset();
            assertEquals(1, run("serve", "--space", "alpha", "--oidc-issuer", "http://127.0.0.1:1/realms/cotal",
                    "--oidc-client-id", "cotal-space", "--server", nats.url(), "--root", root.toString()));
            assertTrue(err.toString(StandardCharsets.UTF_8).contains("discovery document"), err.toString(StandardCharsets.UTF_8));
            Path stateDir = CotalRoot.userAuthStateDir(root, "alpha");
            assertTrue(Files.notExists(stateDir.resolve("idp.json")) && Files.notExists(stateDir.resolve("auth-service.json")),
                    "an unreachable provider pins nothing and starts nothing");
        }
    }

    @Test
    void aPlainHttpUrlOffLoopbackIsRefusedBeforeAnythingIsSent(@TempDir Path dir) throws Exception {
        Path token = dir.resolve("token");
        Files.writeString(token, "idp-token-that-must-stay-home");
        assertEquals(1, run("service-endpoint", "--space", "alpha", "--url", "http://192.0.2.1:8443", "--token-file",
                token.toString(), "{\"kind\":\"name-read\",\"name\":\"forecast\"}"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--url must be https"), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aProcessSquattingAStaleCapabilityFilesPortReceivesNoCapabilityAndNoToken(@TempDir Path stateDir) throws Exception {
        java.util.List<String> received = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        java.util.concurrent.atomic.AtomicBoolean flood = new java.util.concurrent.atomic.AtomicBoolean();
        com.sun.net.httpserver.HttpServer squatter = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
        squatter.createContext("/", http -> {
            received.add(http.getRequestMethod() + " " + http.getRequestURI() + " auth=" + http.getRequestHeaders()
                    .containsKey("Authorization") + " body=" + http.getRequestBody().readAllBytes().length
                    + " challenged=" + http.getRequestHeaders().containsKey("X-Cotal-Challenge"));
            // the issuer is public: a squatter can answer it, but not the proof of the file's capability
            byte[] body = flood.get() ? new byte[8 * 1024 * 1024] // a health answer the CLI must not read whole
                    : "{\"ok\":true,\"issuer\":\"urn:cotal:auth:alpha\",\"proof\":\"guess\"}".getBytes(StandardCharsets.UTF_8);
            http.sendResponseHeaders(200, body.length);
            http.getResponseBody().write(body);
            http.close();
        });
        squatter.start();
        try {
            String url = "http://127.0.0.1:" + squatter.getAddress().getPort();
            Files.writeString(stateDir.resolve("auth-service.json"), "{\"ver\":1,\"url\":\"" + url
                    + "\",\"capability\":\"stale-capability-0123456789\"}");
            Path token = stateDir.resolve("token");
            Files.writeString(token, "idp-token-that-must-stay-home");
            assertEquals(1, run("service-endpoint", "--space", "alpha", "--state", stateDir.toString(), "--token-file",
                    token.toString(), "{\"kind\":\"name-read\",\"name\":\"forecast\"}"));
            assertTrue(err.toString(StandardCharsets.UTF_8).contains("does not hold the capability")
                    && err.toString(StandardCharsets.UTF_8).contains("nothing was sent"), err.toString(StandardCharsets.UTF_8));
            assertEquals(List.of("GET /health auth=false body=0 challenged=true"), received,
                    "only the challenged health check reached the squatter");
            flood.set(true);
            assertEquals(1, run("service-endpoint", "--space", "alpha", "--state", stateDir.toString(), "--token-file",
                    token.toString(), "{\"kind\":\"name-read\",\"name\":\"forecast\"}"));
            assertTrue(err.toString(StandardCharsets.UTF_8).contains("does not answer as an auth service (IOException)"),
                    err.toString(StandardCharsets.UTF_8));
            assertEquals(2, received.size(), "an oversized health answer is refused; nothing else was sent");
            Files.delete(stateDir.resolve("auth-service.json"));
            assertEquals(1, run("service-endpoint", "--space", "alpha", "--state", stateDir.toString(), "--token-file",
                    token.toString(), "{\"kind\":\"name-read\",\"name\":\"forecast\"}"));
            assertTrue(err.toString(StandardCharsets.UTF_8).contains("the service is not running"));
            assertEquals(2, received.size(), "no file, no request");
        } finally {
            squatter.stop(0);
        }
    }

    /** Every file under {@code dir} is 0600 and every directory 0700 (issue #11 part 4). */
    private static void assertPrivate(Path dir) throws Exception {
        int files = 0;
        try (java.util.stream.Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.toList()) {
                String mode = java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(p,
                        java.nio.file.LinkOption.NOFOLLOW_LINKS));
                if (Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    assertEquals("rwx------", mode, p + " is a directory of secrets");
                } else {
                    assertEquals("rw-------", mode, p + " is a secret file");
                    files++;
                }
            }
        }
        assertTrue(files >= 5, "the provisioned root holds the secret store, ledger, pin and readiness file: " + files);
    }

    @Test
    void theDemoDrivesEveryStepThroughTheRoutesAndExitsZero() {
        int code = run("demo");
        String printed = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, err.toString(StandardCharsets.UTF_8) + printed);
        for (String row : new String[] {"| register       | pending", "| decide         | completed",
                "| caller-grant   | granted", "| instance-read  | completed", "| name-bind      | completed",
                "| revoke         | completed"}) {
            assertTrue(printed.contains(row), "missing row " + row + " in\n" + printed);
        }
        assertTrue(printed.contains("denyNew in-effect"), printed);
        for (String row : new String[] {"| bundle   | GET /.well-known/cotal-mesh", "| exchange | POST ",
                "admitted by the callout (CONNECTED)"}) { // a client that knows only the public URL joins
            assertTrue(printed.contains(row), "missing row " + row + " in\n" + printed);
        }
        assertTrue(printed.contains("everything it started is stopped"), printed);
        for (String counted : new String[] {"what the service counted:",
                "cotal.auth.callout.decisions{code=none,outcome=admitted,reason=admitted} ",
                "cotal.auth.endpoint.invocations{operation=register,status=pending} 1",
                "cotal.auth.http.requests{face=public,route=join-bundle,status=200} 1"}) { // the demo's counters (SPEC §13.21)
            assertTrue(printed.contains(counted), "missing " + counted + " in\n" + printed);
        }
    }

    @Test
    void theDemoPinsAnExternalOidcIssuerAndJoinsWithItsIdToken(@TempDir Path dir) throws Exception {
        try (OidcTestProvider provider = new OidcTestProvider()) {
            String idToken = provider.rs256("f:3c1e9b2a:alice@example.com");
            Path tokenFile = dir.resolve("id-token");
            Files.writeString(tokenFile, idToken + "\n");
            int code = run("demo", "--oidc-issuer", provider.issuer(), "--oidc-client-id", provider.clientId(),
                    "--oidc-token-file", tokenFile.toString(), "--oidc-alg", "RS256");
            String printed = out.toString(StandardCharsets.UTF_8);
            assertEquals(0, code, err.toString(StandardCharsets.UTF_8) + printed);
            assertTrue(printed.contains("OpenID Connect issuer " + provider.issuer()), printed);
            for (String row : new String[] {"| register       | pending", "| revoke         | completed",
                    "idp " + provider.issuer() + ",", "| exchange | POST ", "admitted by the callout (CONNECTED)"}) {
                assertTrue(printed.contains(row), "missing row " + row + " in\n" + printed);
            }
            assertTrue(!printed.contains(idToken) && !err.toString(StandardCharsets.UTF_8).contains(idToken),
                    "the ID token is never printed");
        }
    }

    @Test
    void theDemoTakesTheOidcFlagsTogetherAndStartsNothingWithoutThem(@TempDir Path dir) throws Exception {
        assertEquals(2, run("demo", "--oidc-issuer", "http://127.0.0.1:1/realms/demo", "--oidc-client-id", "c"));
        String said = err.toString(StandardCharsets.UTF_8);
        assertTrue(said.contains("--oidc-token-file is missing") && said.contains("usage: cotal-auth demo [--oidc-issuer"),
                said);
        err.reset();
        assertEquals(2, run("demo", "--oidc-alg", "RS256"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--oidc-issuer is missing"), err.toString(StandardCharsets.UTF_8));
        err.reset();
        assertEquals(2, run("demo", "--oidc-issuer", "http://127.0.0.1:1/realms/demo", "--oidc-client-id", "c",
                "--oidc-token-file", dir.resolve("absent").toString()));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("cannot be read"), err.toString(StandardCharsets.UTF_8));
        assertEquals("", out.toString(StandardCharsets.UTF_8), "nothing started");
    }
}
