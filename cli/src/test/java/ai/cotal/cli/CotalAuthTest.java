package ai.cotal.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The cotal-auth command: usage, and the demo end to end on the project's nats-server. */
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
    void serveRunsAProvisionedSpaceUntilStoppedAndRefusesAMixedSetting(@org.junit.jupiter.api.io.TempDir
            java.nio.file.Path root) throws Exception {
        assertEquals(2, run("serve", "--spaces", "m.json", "--service-endpoints", "--server", "nats://x", "--root", "r"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("manifest entry"));
        java.time.Clock clock = java.time.Clock.systemUTC();
        ai.cotal.core.trust.SpaceAuth auth = ai.cotal.core.trust.SpaceAuth.create("alpha", clock);
        ai.cotal.core.trust.CalloutAuth callout = ai.cotal.core.trust.CalloutAuth.create("alpha", auth.broker(),
                auth.space().accountPublicKey(), clock);
        ai.cotal.workspace.FileSecretStore secrets = new ai.cotal.workspace.FileSecretStore(root);
        ai.cotal.auth.service.ServiceMaterial.store(secrets, auth.strip(), callout);
        secrets.putText(ai.cotal.workspace.SecretKeys.membershipObserverCredsKey("alpha"),
                ai.cotal.core.creds.Creds.mintSystem(auth.broker(), ai.cotal.core.creds.Identity.create(),
                        ai.cotal.core.creds.CredentialProfile.MEMBERSHIP_OBSERVER, auth.space().accountPublicKey(),
                        ai.cotal.core.creds.MintOptions.defaults()).text());
        try (ai.cotal.testbroker.NatsBroker nats = ai.cotal.testbroker.NatsBroker.start(
                ai.cotal.testbroker.BackendChoice.detect(), b -> ai.cotal.core.config.ServerConfig.render(auth.broker(),
                        java.util.List.of(auth.space()), ai.cotal.core.config.ServerConfigOptions.builder()
                                .transport(ai.cotal.core.config.Transport.plaintext()).storeDir(b.storeDir())
                                .extraAccounts(java.util.List.of(callout.jwt())).build()))) {
            java.util.concurrent.CompletableFuture<String> serving = new java.util.concurrent.CompletableFuture<>();
            PrintStream lines = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8) {
                @Override
                public void println(String line) {
                    if (line.contains("serving at")) {
                        serving.complete(line.substring(line.indexOf("http")));
                    }
                }
            };
            java.util.concurrent.CompletableFuture<Void> stop = new java.util.concurrent.CompletableFuture<>();
            java.util.concurrent.CompletableFuture<Integer> exit = java.util.concurrent.CompletableFuture.supplyAsync(
                    () -> CotalAuth.run(new String[] {"serve", "--space", "alpha", "--service-endpoints", "--server",
                            nats.url(), "--root", root.toString()}, lines, new PrintStream(err, true,
                            StandardCharsets.UTF_8), stop));
            String url = serving.get(30, java.util.concurrent.TimeUnit.SECONDS);
            java.nio.file.Path stateDir = ai.cotal.workspace.CotalRoot.userAuthStateDir(root, "alpha");
            try (LocalIdp idp = new LocalIdp()) {
                ai.cotal.auth.IdpPin.pin(stateDir, idp.url());
                java.nio.file.Path token = root.resolve("token");
                java.nio.file.Files.writeString(token, idp.token("alice", java.time.Duration.ofMinutes(5)));
                out.reset();
                assertEquals(1, run("service-endpoint", "--state", stateDir.toString(), "--token-file", token.toString(),
                        "--actor", "laptop", "{\"kind\":\"name-read\",\"name\":\"forecast\"}"), err.toString());
                assertTrue(out.toString(StandardCharsets.UTF_8).contains("\"status\":\"denied\""), out.toString());
                assertEquals(2, run("service-endpoint", "--state", stateDir.toString(), "--token-file", token.toString(),
                        "--actor", "laptop", "{\"kind\":\"name-read\",\"name\":\"Not A Label\"}"));
            }
            java.net.http.HttpResponse<String> health = java.net.http.HttpClient.newHttpClient().send(
                    java.net.http.HttpRequest.newBuilder(java.net.URI.create(url + "/health")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(200, health.statusCode());
            assertTrue(java.nio.file.Files.exists(ai.cotal.workspace.CotalRoot.userAuthStateDir(root, "alpha")
                    .resolve("auth-service.json")));
            stop.complete(null);
            assertEquals(0, exit.get(30, java.util.concurrent.TimeUnit.SECONDS), err.toString(StandardCharsets.UTF_8));
        }
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
        assertTrue(printed.contains("everything it started is stopped"), printed);
    }
}
