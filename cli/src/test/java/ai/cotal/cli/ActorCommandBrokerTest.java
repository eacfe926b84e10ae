package ai.cotal.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.micrometer.MicrometerSink;
import ai.cotal.auth.service.AuthService;
import ai.cotal.auth.service.AuthServiceOptions;
import ai.cotal.auth.service.ServiceMaterial;
import ai.cotal.core.id.Principal;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.testbroker.oidc.OidcTestProvider;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cotal-auth actor} against a running stock service that pins the test OpenID provider, on
 * a real broker: {@code actor grant --subject} writes exactly the row the person's exchange reads
 * (the exchange is refused before and admitted after), {@code actor list} shows it,
 * {@code actor revoke} removes it and the next exchange is refused; bad arguments exit 2 and the
 * service's loopback face sees no request; the public face answers the routes 404.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class ActorCommandBrokerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Clock clock = Clock.systemUTC();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final HttpClient http = HttpClient.newHttpClient();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @TempDir
    Path root;

    private int run(String... args) {
        out.reset();
        err.reset();
        List<String> command = new ArrayList<>(List.of("actor"));
        command.addAll(List.of(args));
        return CotalAuth.run(command.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private JsonNode answer() throws Exception {
        return JSON.readTree(out.toString(StandardCharsets.UTF_8));
    }

    /** Every answer the loopback face sent, whatever the route: what a command sent reaches it. */
    private double loopbackRequests() {
        return registry.find("cotal.auth.http.requests").tag("face", "loopback").counters().stream()
                .mapToDouble(Counter::count).sum();
    }

    private HttpResponse<String> exchange(AuthService service, String idpToken) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(service.loopbackUrl() + "/exchange"))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + service.capability())
                .POST(HttpRequest.BodyPublishers.ofString("{\"idpToken\":\"" + idpToken + "\",\"actor\":\"laptop\"}"))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void grantsListsAndRevokesAPersonsActorThroughTheLoopbackFace(NatsBrokers brokers) throws Exception {
        ProvisionedSpace alpha = new ProvisionedSpace(root, clock);
        NatsBroker nats = brokers.start(alpha::config);
        Path state = root.resolve("state");
        ServiceMaterial.Loaded material = ServiceMaterial.forService(alpha.secrets, "alpha", null);
        try (OidcTestProvider idp = new OidcTestProvider();
             AuthService service = AuthService.open(AuthPlaneOptions.builder().server(nats.url()).space("alpha")
                     .stateDir(state).secretStore(alpha.secrets).clock(clock).signer(material.signer())
                     .callout(material.callout()).meterSink(MicrometerSink.of(registry)).build(),
                     AuthServiceOptions.builder().oidc(idp.issuer(), OidcTestProvider.CLIENT_ID, List.of())
                             .publicAddress(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0))
                             .build())) {
            String s = state.toString();
            String owner = service.plane().deriveOwner(idp.issuer(), "alice").value();

            double before = loopbackRequests();
            for (String[] args : new String[][] {
                {}, {"promote"}, {"grant", "--space", "alpha", "--state", s, "--actor", "laptop"}, // no person
                {"grant", "--space", "alpha", "--state", s, "--subject", "alice", "--owner", owner, "--actor", "laptop"},
                {"grant", "--space", "alpha", "--state", s, "--subject", "alice"}, // no actor
                {"list", "--space", "alpha", "--state", s, "--subject", "alice", "--actor", "laptop"},
                {"revoke", "--space", "alpha", "--state", s, "--subject", "alice", "--actor", "laptop", "--scope", "x"},
                {"grant", "--bogus", "x"}}) {
                assertEquals(2, run(args), String.join(" ", args));
                assertTrue(err().contains("usage: cotal-auth actor grant"), String.join(" ", args) + ": " + err());
            }
            String[][] refusedArgs = {
                {"actor:", "grant", "--space", "alpha", "--state", s, "--subject", "alice", "--actor", "lap.top"},
                {"owner:", "grant", "--space", "alpha", "--state", s, "--owner", "Mallory", "--actor", "laptop"},
                {"subject:", "grant", "--space", "alpha", "--state", s, "--subject", "has space", "--actor", "laptop"},
                {"allowPublish[0]:", "grant", "--space", "alpha", "--state", s, "--subject", "alice", "--actor", "laptop",
                    "--publish", "chat.>"},
                {"label:", "grant", "--space", "alpha", "--state", s, "--subject", "alice", "--actor", "laptop",
                    "--label", "policy:staff"}};
            for (String[] args : refusedArgs) {
                assertEquals(2, run(java.util.Arrays.copyOfRange(args, 1, args.length)), String.join(" ", args));
                assertTrue(err().contains("bad-request: " + args[0]) && err().contains("nothing was sent"), err());
            }
            assertEquals(before, loopbackRequests(), "no bad argument reached the service");
            assertTrue(service.plane().ledger().find(Principal.of(owner, "laptop")).isEmpty());

            for (String route : List.of("/actors/grant", "/actors/revoke", "/actors/list")) { // the operator's: loopback only
                HttpResponse<String> publicly = http.send(HttpRequest.newBuilder(URI.create(service.publicUrl().orElseThrow()
                        + route)).header("Content-Type", "application/json").header("Authorization", "Bearer "
                        + service.capability()).POST(HttpRequest.BodyPublishers.ofString("{\"subject\":\"alice\","
                        + "\"actor\":\"laptop\"}")).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(404, publicly.statusCode(), route + ": " + publicly.body());
            }
            assertTrue(service.plane().ledger().find(Principal.of(owner, "laptop")).isEmpty());

            HttpResponse<String> refused = exchange(service, idp.rs256("alice"));
            assertEquals(401, refused.statusCode());
            assertTrue(refused.body().contains("actor laptop is not granted"), refused.body());

            assertEquals(0, run("grant", "--space", "alpha", "--state", s, "--subject", "alice", "--actor", "laptop",
                    "--subscribe", "general", "--publish", "general", "--label", "alice's laptop"), err());
            JsonNode granted = answer();
            assertEquals(owner, granted.get("owner").asText(), "the owner the exchange derives from the subject");
            assertEquals("interactive", granted.get("kind").asText());
            assertEquals("operator", granted.get("source").asText());
            assertEquals("general", granted.get("allowPublish").get(0).asText());

            HttpResponse<String> admitted = exchange(service, idp.rs256("alice"));
            assertEquals(200, admitted.statusCode(), admitted.body());
            assertEquals(owner, JSON.readTree(admitted.body()).get("owner").asText());

            assertEquals(0, run("list", "--space", "alpha", "--state", s, "--owner", owner), err());
            JsonNode listed = answer();
            assertEquals(1, listed.get("actors").size(), listed.toString());
            assertEquals("laptop", listed.get("actors").get(0).get("actor").asText());
            assertEquals(granted.get("lifecycleUid"), listed.get("actors").get(0).get("lifecycleUid"));

            assertEquals(1, run("grant", "--space", "beta", "--state", s, "--subject", "alice", "--actor", "laptop"));
            assertTrue(err().contains("is not the auth service of space \"beta\"") && err().contains("nothing was sent"),
                    err());

            assertEquals(0, run("revoke", "--space", "alpha", "--state", s, "--subject", "alice", "--actor", "laptop"), err());
            assertTrue(answer().get("revoked").asBoolean());
            assertEquals(0, run("revoke", "--space", "alpha", "--state", s, "--subject", "alice", "--actor", "laptop"));
            assertTrue(!answer().get("revoked").asBoolean(), "nothing left to revoke");
            assertEquals(0, run("list", "--space", "alpha", "--state", s, "--subject", "alice"), err());
            assertEquals(0, answer().get("actors").size());

            HttpResponse<String> after = exchange(service, idp.rs256("alice"));
            assertEquals(401, after.statusCode(), after.body());
            assertTrue(after.body().contains("actor laptop is not granted"), after.body());

            service.plane().ledger().grantManagedActor(Principal.of(owner, "agent"),
                    ai.cotal.auth.Grant.of(List.of(), List.of(), List.of()),
                    ai.cotal.auth.ActorTokens.tokenHash(ai.cotal.auth.ActorTokens.newActorToken()),
                    ai.cotal.auth.ActorTokens.newLifecycleUid());
            assertEquals(1, run("grant", "--space", "alpha", "--state", s, "--owner", owner, "--actor", "agent"));
            assertTrue(err().contains("refused 409: already-exists:"), "a route refusal prints its code: " + err());
        }
        assertEquals(1, run("list", "--space", "alpha", "--state", state.toString(), "--subject", "alice"));
        assertTrue(err().contains("the service is not running"), err());
    }
}
