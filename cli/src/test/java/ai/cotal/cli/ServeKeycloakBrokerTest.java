package ai.cotal.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.InboxNonce;
import ai.cotal.core.id.Principal;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.testbroker.oidc.KeycloakExtension;
import ai.cotal.testbroker.oidc.KeycloakRealm;
import ai.cotal.testbroker.oidc.KeycloakServer;
import ai.cotal.workspace.CotalRoot;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A person signs in with Keycloak to a space run entirely by the command line: {@code space add},
 * {@code up}, {@code serve --public --oidc-issuer <realm>}, {@code actor grant --subject}; the
 * person's password-grant ID token is exchanged at the public face and a jnats client is admitted
 * through the callout; after {@code actor revoke} the exchange and the connect are refused.
 */
@Tag("broker")
@ExtendWith({NatsBrokerExtension.class, KeycloakExtension.class})
class ServeKeycloakBrokerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CLIENT = "cotal-space";
    private static final String PASSWORD = "alice-password-1";
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path temp;

    private int run(String... args) {
        out.reset();
        err.reset();
        return CotalAuth.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private void ok(String... args) {
        assertEquals(0, run(args), String.join(" ", args) + "\nstdout: " + out + "\nstderr: " + err);
    }

    private HttpResponse<String> exchange(String publicUrl, String idToken) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(publicUrl + "/exchange")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"idpToken\":\"" + idToken + "\",\"actor\":\"laptop\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static Connection connect(JsonNode bundle, String owner, String bearer) throws Exception {
        String nonce = InboxNonce.forPrincipal(Principal.of(owner, "laptop"));
        return Nats.connect(new Options.Builder().server(bundle.get("server").asText())
                .authHandler(Nats.staticCredentials(bundle.get("sentinelCreds").asText().getBytes(StandardCharsets.UTF_8)))
                .token(bearer.toCharArray()).connectionName(nonce).inboxPrefix(InboxNonce.inboxPrefix(nonce))
                .maxControlLine(65_536).noReconnect().connectionTimeout(Duration.ofSeconds(5)).build());
    }

    @Test
    void aKeycloakUserGrantedByTheCommandLineConnectsAndIsRefusedAfterRevoke(NatsBrokers brokers, KeycloakServer keycloak)
            throws Exception {
        KeycloakRealm realm = keycloak.realm("cli-signin");
        realm.client(CLIENT);
        String sub = realm.user("alice", PASSWORD);
        Path root = temp.resolve("root");
        ok("space", "add", "--root", root.toString(), "--space", "alpha");
        NatsBroker nats = brokers.start(b -> {
            ok("up", "--root", root.toString(), "--store-dir", b.storeDir().toString());
            try {
                return Files.readString(root.resolve(UpCommand.CONFIG));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        ok("space", "add", "--root", root.toString(), "--space", "alpha", "--server", nats.url());

        CompletableFuture<String> publicFace = new CompletableFuture<>();
        PrintStream lines = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8) {
            @Override
            public void println(String line) {
                if (line.contains("public face at ")) {
                    publicFace.complete(line.substring(line.indexOf("http")));
                }
            }
        };
        ByteArrayOutputStream serveErr = new ByteArrayOutputStream();
        CompletableFuture<Void> stop = new CompletableFuture<>();
        ExecutorService serveThread = Executors.newSingleThreadExecutor(); // serve blocks until stopped
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> CotalAuth.run(new String[] {"serve",
                "--space", "alpha", "--server", nats.url(), "--root", root.toString(), "--public", "0",
                "--oidc-issuer", realm.issuer(), "--oidc-client-id", CLIENT}, lines,
                new PrintStream(serveErr, true, StandardCharsets.UTF_8), stop), serveThread);
        serveThread.shutdown();
        try {
            String url = publicFace.get(60, TimeUnit.SECONDS);
            String state = CotalRoot.userAuthStateDir(root, "alpha").toString();
            JsonNode bundle = JSON.readTree(http.send(HttpRequest.newBuilder(URI.create(url + "/.well-known/cotal-mesh"))
                    .build(), HttpResponse.BodyHandlers.ofString()).body());
            assertEquals(realm.issuer(), bundle.path("userAuth").path("idp").path("issuer").asText(), "the bundle names Keycloak");

            String idToken = realm.tokens(CLIENT, "alice", PASSWORD).idToken();
            HttpResponse<String> ungranted = exchange(url, idToken);
            assertEquals(401, ungranted.statusCode(), ungranted.body());

            ok("actor", "grant", "--space", "alpha", "--state", state, "--subject", sub, "--actor", "laptop",
                    "--subscribe", "general", "--publish", "general");
            String owner = JSON.readTree(out.toString(StandardCharsets.UTF_8)).get("owner").asText();
            HttpResponse<String> granted = exchange(url, realm.tokens(CLIENT, "alice", PASSWORD).idToken());
            assertEquals(200, granted.statusCode(), granted.body());
            String bearer = JSON.readTree(granted.body()).get("token").asText();
            assertEquals(owner, JSON.readTree(granted.body()).get("owner").asText());
            try (Connection laptop = connect(bundle, owner, bearer)) {
                laptop.flush(Duration.ofSeconds(5));
                assertEquals(Connection.Status.CONNECTED, laptop.getStatus(), "admitted by the callout");
                assertTrue(laptop.getServerInfo().getServerName() != null);
            }

            ok("actor", "revoke", "--space", "alpha", "--state", state, "--subject", sub, "--actor", "laptop");
            HttpResponse<String> revoked = exchange(url, realm.tokens(CLIENT, "alice", PASSWORD).idToken());
            assertEquals(401, revoked.statusCode(), revoked.body());
            assertTrue(revoked.body().contains("actor laptop is not granted"), revoked.body());
            IOException refused = assertThrows(IOException.class, () -> connect(bundle, owner, bearer).close(),
                    "the bearer minted before the revoke connects nowhere");
            assertTrue(refused.getMessage().toLowerCase(Locale.ROOT).contains("authorization"), refused.getMessage());
        } finally {
            stop.complete(null);
        }
        assertEquals(0, exit.get(30, TimeUnit.SECONDS), serveErr.toString(StandardCharsets.UTF_8));
    }
}
