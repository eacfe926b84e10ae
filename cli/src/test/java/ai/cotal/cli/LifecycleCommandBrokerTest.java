package ai.cotal.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.ActorTokens;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.Grant;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.InboxNonce;
import ai.cotal.auth.Lifecycles;
import ai.cotal.auth.service.AuthService;
import ai.cotal.auth.service.AuthServiceOptions;
import ai.cotal.auth.service.ServiceMaterial;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cotal-auth lifecycle retire} against a running stock service on a real broker: the
 * arguments are refused naming the field before anything is sent, each answer of SPEC §14.1 is
 * printed with its exit code, and a retired lifecycle's connection is closed by the broker, which
 * then refuses its bearer.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class LifecycleCommandBrokerTest {
    private static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Clock clock = Clock.systemUTC();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @TempDir
    Path root;

    /** Runs {@code cotal-auth lifecycle ...} with fresh output buffers. */
    private int run(String... args) {
        out.reset();
        err.reset();
        List<String> command = new ArrayList<>(List.of("lifecycle"));
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

    private int retire(String kind, String space, Path state, String actor, String uid) {
        return run("retire", kind, "--space", space, "--state", state.toString(), "--owner", OWNER, "--actor", actor,
                "--lifecycle-uid", uid);
    }

    @Test
    void usageMistakesAndArgumentsOutOfGrammarExitTwoBeforeAnythingIsSent() {
        LifecycleUid uid = ActorTokens.newLifecycleUid();
        String state = root.resolve("no-service").toString();
        for (String[] args : new String[][] {
            {}, {"revive"}, {"retire", "--space", "alpha", "--state", state, "--owner", OWNER, "--actor", "a",
                "--lifecycle-uid", uid.value()}, // no kind
            {"retire", "--interactive", "--managed", "--space", "alpha", "--state", state, "--owner", OWNER, "--actor", "a",
                "--lifecycle-uid", uid.value()},
            {"retire", "--interactive", "--space", "alpha", "--space", "beta", "--state", state, "--owner", OWNER,
                "--actor", "a", "--lifecycle-uid", uid.value()},
            {"retire", "--interactive", "--bogus", "x"}, {"retire", "--interactive", "--owner"}}) {
            assertEquals(2, run(args), String.join(" ", args));
            assertTrue(err().contains("usage: cotal-auth lifecycle retire"), String.join(" ", args) + ": " + err());
        }
        assertEquals(2, retire("--interactive", "alpha", Path.of(state), "a.b", uid.value()));
        assertTrue(err().contains("bad-request: actor: must be 1 to 64 of [A-Za-z0-9_]; nothing was sent"), err());
        assertEquals(2, run("retire", "--managed", "--space", "alpha", "--state", state, "--owner", "Mallory!",
                "--actor", "a", "--lifecycle-uid", uid.value()));
        assertTrue(err().contains("bad-request: owner:"), err());
        assertEquals(2, retire("--managed", "alpha", Path.of(state), "a", "NOT-A-UID"));
        assertTrue(err().contains("bad-request: lifecycleUid: must be 26 to 32 of [a-z0-9]"), err());
        assertEquals(1, retire("--interactive", "alpha", Path.of(state), "a", uid.value()), "valid, but no service runs there");
        assertTrue(err().contains("the service is not running"), err());
    }

    @Test
    void retiresThroughTheLoopbackFaceAndTheBrokerClosesTheLifecyclesConnection(NatsBrokers brokers) throws Exception {
        ProvisionedSpace alpha = new ProvisionedSpace(root, clock);
        NatsBroker nats = brokers.start(alpha::config);
        Path state = root.resolve("state");
        ServiceMaterial.Loaded material = ServiceMaterial.forService(alpha.secrets, "alpha", null);
        try (AuthService service = AuthService.open(AuthPlaneOptions.builder().server(nats.url()).space("alpha")
                .stateDir(state).secretStore(alpha.secrets).clock(clock).signer(material.signer())
                .callout(material.callout()).build(), AuthServiceOptions.builder().build())) {
            AuthAuthorityPlane plane = service.plane();
            ActorRow laptop = plane.ledger().grantActor(Principal.of(OWNER, "laptop"), Grant.of(List.of("chat"),
                    List.of("general"), List.of()));
            LifecycleUid uid = laptop.lifecycleUid();
            String bearer = plane.bearers().issue(BearerRequest.member(Principal.of(OWNER, "laptop"), List.of("chat"), uid,
                    plane.credentials().mint(Principal.of(OWNER, "laptop"), uid).id(), Duration.ofMinutes(5))); // the mint activates uid

            assertEquals(1, retire("--interactive", "beta", state, "laptop", uid.value()), "asked as another space's service");
            assertTrue(err().contains("is not the auth service of space \"beta\"") && err().contains("nothing was sent"),
                    err());
            assertEquals(Lifecycles.State.ACTIVE, plane.lifecycles().head(Principal.of(OWNER, "laptop")).orElseThrow().state());

            CompletableFuture<Void> closed = new CompletableFuture<>();
            try (Connection client = connect(nats, alpha.callout, bearer, (conn, type) -> {
                if (type == ConnectionListener.Events.DISCONNECTED || type == ConnectionListener.Events.CLOSED) {
                    closed.complete(null);
                }
            })) {
                assertEquals(Connection.Status.CONNECTED, client.getStatus());
                assertEquals(0, retire("--interactive", "alpha", state, "laptop", uid.value()), err());
                JsonNode retired = answer();
                assertEquals("retired", retired.path("outcome").asText(), retired.toString());
                assertEquals(Lifecycles.interactiveRetirementOpId(uid.value()), retired.path("opId").asText());
                assertEquals(1, retired.path("connectionsClosed").asInt(), retired.toString());
                closed.get(10, TimeUnit.SECONDS); // the broker kicked the lifecycle's connection
            }
            Exception refused = assertThrows(Exception.class, () -> connect(nats, alpha.callout, bearer, (conn, type) -> { }));
            assertTrue(String.valueOf(refused.getMessage()).contains("Authorization Violation"), refused.toString());

            assertEquals(0, retire("--interactive", "alpha", state, "laptop", uid.value()), err());
            assertEquals("alreadyRetired", answer().path("outcome").asText());
            assertEquals(1, retire("--interactive", "alpha", state, "nobody", ActorTokens.newLifecycleUid().value()));
            assertEquals("notStarted", answer().path("outcome").asText(), "printed, and exit 1: nothing was retired");

            LifecycleUid first = ActorTokens.newLifecycleUid();
            plane.ledger().grantManagedActor(Principal.of(OWNER, "agent"), Grant.of(List.of(), List.of(), List.of()),
                    ActorTokens.tokenHash(ActorTokens.newActorToken()), first);
            plane.lifecycles().activateManaged(Principal.of(OWNER, "agent"), first);
            assertEquals(1, retire("--managed", "alpha", state, "agent", first.value()));
            assertTrue(err().contains("refused 409") && err().contains("still at lifecycle"), err());
            LifecycleUid successor = ActorTokens.newLifecycleUid();
            plane.ledger().grantManagedActor(Principal.of(OWNER, "agent"), Grant.of(List.of(), List.of(), List.of()),
                    ActorTokens.tokenHash(ActorTokens.newActorToken()), successor);
            assertEquals(0, retire("--managed", "alpha", state, "agent", first.value()), err());
            assertEquals("retired", answer().path("outcome").asText());
            assertEquals(Lifecycles.managedRetirementOpId(first.value()), answer().path("opId").asText());
            plane.lifecycles().activateManaged(Principal.of(OWNER, "agent"), successor);
            assertEquals(1, retire("--managed", "alpha", state, "agent", ActorTokens.newLifecycleUid().value()));
            assertEquals("conflict", answer().path("outcome").asText(), "the successor is live");
        }
    }

    private static Connection connect(NatsBroker nats, CalloutAuth callout, String bearer, ConnectionListener listener)
            throws Exception {
        String nonce = InboxNonce.forPrincipal(Principal.of(OWNER, "laptop"));
        return Nats.connect(new Options.Builder().server(nats.url()).noReconnect().connectionTimeout(Duration.ofSeconds(5))
                .maxControlLine(ServerConfig.MAX_CONTROL_LINE).authHandler(callout.sentinelCreds().authHandler())
                .token(bearer.toCharArray()).connectionName(nonce).inboxPrefix(InboxNonce.inboxPrefix(nonce))
                .connectionListener(listener).build());
    }
}
