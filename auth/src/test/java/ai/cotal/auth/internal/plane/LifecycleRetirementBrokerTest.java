package ai.cotal.auth.internal.plane;

import static ai.cotal.auth.internal.plane.LifecycleFixture.OWNER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.ActorTokens;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.Grant;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.InboxNonce;
import ai.cotal.auth.Lifecycles;
import ai.cotal.auth.internal.callout.AuthCallout;
import ai.cotal.auth.internal.callout.CalloutFixture;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import ai.cotal.testbroker.NatsBroker;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.Nats;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retiring interactive and managed lifecycles through the loopback routes (SPEC §14.1): the
 * broker refuses the lifecycle's next connect (the callout reads the head), its live connection is
 * kicked, a second retire answers {@code alreadyRetired}, a retire at another uid {@code notStarted}
 * or {@code conflict}.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class LifecycleRetirementBrokerTest {
    private static final String INTERACTIVE = "/interactive-lifecycle/retire";
    private static final String MANAGED = "/managed-lifecycle/retire";
    private static final Grant GRANT = Grant.of(List.of("chat"), List.of(), List.of());

    @TempDir
    Path stateDir;

    @Test
    void aRetiredInteractiveLifecycleIsRefusedByTheBrokerAndEveryOutcomeAnswers(NatsBrokers brokers) throws Exception {
        try (LifecycleFixture x = new LifecycleFixture(brokers, stateDir)) {
            ActorRow row = x.plane.ledger().grantActor(Principal.of(OWNER, "laptop"), GRANT);
            LifecycleUid uid = row.lifecycleUid();
            assertEquals("notStarted", x.retire(INTERACTIVE, "laptop", uid.value()).path("outcome").asText(),
                    "no head yet: nothing was ever minted at this lifecycle");
            String live = x.bearer(row); // the mint activates the lifecycle
            String spare = x.bearer(row);
            Lifecycles.Head head = x.plane.lifecycles().head(Principal.of(OWNER, "laptop")).orElseThrow();
            assertEquals(Lifecycles.State.ACTIVE, head.state());
            assertEquals(uid, head.lifecycleUid());

            try (LifecycleFixture.Watched connected = x.connect("laptop", live)) {
                assertEquals("conflict", x.retire(INTERACTIVE, "laptop", ActorTokens.newLifecycleUid().value()).path("outcome")
                        .asText(), "another uid while the head's is live");
                JsonNode retired = x.retire(INTERACTIVE, "laptop", uid.value());
                assertEquals("retired", retired.path("outcome").asText(), retired.toString());
                assertEquals(Lifecycles.interactiveRetirementOpId(uid.value()), retired.path("opId").asText());
                assertEquals(2, retired.path("credentialsRevoked").asInt(), "both credential rows of the lifecycle");
                assertEquals(1, retired.path("connectionsClosed").asInt(), "recorded and swept: one connection");
                assertTrue(retired.path("swept").asBoolean(), retired.toString());
                connected.closed().get(5, TimeUnit.SECONDS); // the broker closed the live connection (KICK)
            }
            ai.cotal.auth.ConnectAttempt attempt = x.plane.bearers().verify(spare).attempt();
            CotalException why = assertThrows(CotalException.class,
                    () -> ((AuthorityPlaneImpl) x.plane).calloutAuthority().authorizeConnect(attempt));
            assertTrue(why.getMessage().contains("which was retired"), "the head refuses first: " + why.getMessage());
            Exception refused = x.refused("laptop", spare);
            assertTrue(refused.getMessage().contains("Authorization Violation"), refused.getMessage());
            refused = x.refused("laptop", live);
            assertTrue(refused.getMessage().contains("Authorization Violation"), refused.getMessage());

            JsonNode again = x.retire(INTERACTIVE, "laptop", uid.value());
            assertEquals("alreadyRetired", again.path("outcome").asText());
            assertEquals(Lifecycles.interactiveRetirementOpId(uid.value()), again.path("opId").asText());
            assertFalse(again.has("credentialsRevoked"), again.toString());
            HttpResponse<String> wrongKind = x.post(MANAGED, LifecycleFixture.retireBody("laptop", uid.value()), true);
            assertEquals(409, wrongKind.statusCode(), wrongKind.body());
            assertTrue(wrongKind.body().contains("is interactive"), wrongKind.body());
            CotalException mint = assertThrows(CotalException.class, () -> x.bearer(row));
            assertEquals(ErrorCode.FAILED_PRECONDITION, mint.code(), "no credential at a retired lifecycle");

            // a new grant is a new lifecycle: the old uid stays retired, the new one starts once minted
            ActorRow regranted = x.plane.ledger().grantActor(Principal.of(OWNER, "laptop"), GRANT);
            LifecycleUid next = regranted.lifecycleUid();
            assertEquals("alreadyRetired", x.retire(INTERACTIVE, "laptop", uid.value()).path("outcome").asText());
            assertEquals("notStarted", x.retire(INTERACTIVE, "laptop", next.value()).path("outcome").asText(),
                    "the head is still at the retired uid");
            String fresh = x.bearer(regranted);
            try (LifecycleFixture.Watched connected = x.connect("laptop", fresh)) {
                assertTrue(connected.connection().getStatus() == io.nats.client.Connection.Status.CONNECTED);
            }
            assertEquals("conflict", x.retire(INTERACTIVE, "laptop", uid.value()).path("outcome").asText(),
                    "the head moved on to a live lifecycle");
            assertEquals("notStarted", x.retire(INTERACTIVE, "nobody", next.value()).path("outcome").asText());
        }
    }

    @Test
    void aManagedLifecycleRetiresOnceItsGrantMovedOn(NatsBrokers brokers) throws Exception {
        try (LifecycleFixture x = new LifecycleFixture(brokers, stateDir)) {
            LifecycleUid uid = ActorTokens.newLifecycleUid();
            ActorRow row = x.plane.ledger().grantManagedActor(Principal.of(OWNER, "agent"), GRANT,
                    ActorTokens.tokenHash(ActorTokens.newActorToken()), uid);
            Lifecycles.Activation first = x.plane.lifecycles().activateManaged(Principal.of(OWNER, "agent"), uid);
            assertTrue(first.activated());
            assertFalse(x.plane.lifecycles().activateManaged(Principal.of(OWNER, "agent"), uid).activated(), "already active");
            String bearer = x.bearer(row);
            try (LifecycleFixture.Watched connected = x.connect("agent", bearer)) {
                HttpResponse<String> held = x.post(MANAGED, LifecycleFixture.retireBody("agent", uid.value()), true);
                assertEquals(409, held.statusCode(), held.body());
                assertTrue(held.body().contains("still at lifecycle"), held.body());

                LifecycleUid successor = ActorTokens.newLifecycleUid();
                x.plane.ledger().grantManagedActor(Principal.of(OWNER, "agent"), GRANT,
                        ActorTokens.tokenHash(ActorTokens.newActorToken()), successor);
                JsonNode retired = x.retire(MANAGED, "agent", uid.value());
                assertEquals("retired", retired.path("outcome").asText(), retired.toString());
                assertEquals(Lifecycles.managedRetirementOpId(uid.value()), retired.path("opId").asText());
                assertEquals(1, retired.path("connectionsClosed").asInt(), retired.toString());
                connected.closed().get(5, TimeUnit.SECONDS);
                Exception refused = x.refused("agent", bearer);
                assertTrue(refused.getMessage().contains("Authorization Violation"), refused.getMessage());
                assertEquals("alreadyRetired", x.retire(MANAGED, "agent", uid.value()).path("outcome").asText());
                assertEquals("notStarted", x.retire(MANAGED, "agent", successor.value()).path("outcome").asText(),
                        "the head is at the retired uid");

                assertTrue(x.plane.lifecycles().activateManaged(Principal.of(OWNER, "agent"), successor).activated());
                assertEquals("conflict", x.retire(MANAGED, "agent", ActorTokens.newLifecycleUid().value()).path("outcome")
                        .asText(), "the successor is live");
                assertEquals("conflict", x.retire(MANAGED, "agent", uid.value()).path("outcome").asText(),
                        "the head is elsewhere and live: reference §1 answers conflict, even for a uid once retired");
                CotalException back = assertThrows(CotalException.class,
                        () -> x.plane.lifecycles().activateManaged(Principal.of(OWNER, "agent"), uid));
                assertEquals(ErrorCode.FAILED_PRECONDITION, back.code(), "the grant is not at the retired uid");
            }
        }
    }

    @Test
    void aRetirementClosesTheConnectionAnEarlierPlaneAdmitted(NatsBrokers brokers) throws Exception {
        CalloutFixture f = new CalloutFixture();
        NatsBroker nats = brokers.start(f::config);
        ActorRow row;
        String bearer;
        CompletableFuture<Void> closed = new CompletableFuture<>();
        Connection client;
        try (AuthAuthorityPlane first = f.open(nats, stateDir); AuthCallout callout = f.responder(nats, first)) {
            row = first.ledger().grantActor(Principal.of(OWNER, "laptop"), GRANT);
            CredentialId credential = first.credentials().mint(Principal.of(OWNER, "laptop"), row.lifecycleUid()).id();
            bearer = first.bearers().issue(BearerRequest.member(Principal.of(OWNER, "laptop"), List.of("chat"), row.lifecycleUid(),
                    credential, Duration.ofMinutes(5)));
            client = Nats.connect(f.clientOptions(nats, bearer, InboxNonce.forPrincipal(Principal.of(OWNER, "laptop")))
                    .connectionListener((conn, type) -> {
                        if (type == ConnectionListener.Events.DISCONNECTED || type == ConnectionListener.Events.CLOSED) {
                            closed.complete(null);
                        }
                    }).build());
        }
        try (AuthAuthorityPlane second = f.open(nats, stateDir)) {
            assertEquals(Connection.Status.CONNECTED, client.getStatus(), "the first plane's close left it connected");
            Lifecycles.Retirement retired = second.lifecycles().retireInteractive(Principal.of(OWNER, "laptop"), new LifecycleUid(row.lifecycleUid().value()));
            assertEquals(Lifecycles.Retirement.Outcome.RETIRED, retired.outcome());
            assertTrue(retired.swept(), "the broker listed the lifecycle's connections");
            assertEquals(1, retired.connectionsClosed(), "found by its lifecycle key, not in this plane's register");
            closed.get(5, TimeUnit.SECONDS);
        } finally {
            client.close();
        }
    }

    @Test
    void theRetireRoutesAreTheLoopbackOperatorsAndCheckTheirBody(NatsBrokers brokers) throws Exception {
        try (LifecycleFixture x = new LifecycleFixture(brokers, stateDir)) {
            LifecycleUid uid = ActorTokens.newLifecycleUid();
            String body = LifecycleFixture.retireBody("laptop", uid.value());
            assertEquals(401, x.post(INTERACTIVE, body, false).statusCode(), "the capability is the operator's");
            HttpResponse<String> publicFace = x.post(x.exchange.publicUrl().orElseThrow(), INTERACTIVE, body, false);
            assertEquals(404, publicFace.statusCode(), "loopback only");
            assertEquals(404, x.post(x.exchange.publicUrl().orElseThrow(), MANAGED, body, false).statusCode());
            HttpResponse<String> extra = x.post(INTERACTIVE, body.replace("}", ",\"granter\":\"x\"}"), true);
            assertEquals(400, extra.statusCode());
            assertTrue(extra.body().contains("granter"), extra.body());
            HttpResponse<String> missing = x.post(MANAGED, "{\"owner\":\"" + OWNER + "\",\"actor\":\"laptop\"}", true);
            assertEquals(400, missing.statusCode());
            assertTrue(missing.body().contains("lifecycleUid"), missing.body());
            HttpResponse<String> grammar = x.post(INTERACTIVE, LifecycleFixture.retireBody("laptop", "UPPER-case"), true);
            assertEquals(400, grammar.statusCode());
            assertTrue(grammar.body().contains("lifecycleUid"), grammar.body());
            HttpResponse<String> number = x.post(INTERACTIVE, body.replace("\"laptop\"", "7"), true);
            assertEquals(400, number.statusCode(), number.body());
        }
    }
}
