package ai.cotal.auth.internal.plane;

import static ai.cotal.auth.internal.plane.LifecycleFixture.OWNER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.ActorTokens;
import ai.cotal.auth.Grant;
import ai.cotal.auth.Lifecycles;
import ai.cotal.auth.ManagerAuthority;
import ai.cotal.auth.PlaneConnection;
import ai.cotal.auth.TestManager;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The auth admin listener (SPEC §14.1): a candidate manager retires its owner's managed lifecycle
 * over NATS with its standing service credential, and the retired actor's next connect is refused;
 * another instance's credential cannot send on its subject (the broker refuses); a frozen gate and
 * a garbled body answer error replies; an instance that floods its own subject does not hold back
 * another instance's retirement.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class AdminListenerBrokerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Grant GRANT = Grant.of(List.of("chat"), List.of(), List.of());
    private static final String IID = "mgr0000000000000000000000001";
    private static final String SUBJECT = "cotal.alpha.auth.admin." + IID + ".retire-managed";

    @TempDir
    Path stateDir;

    /** A manager's standing connection: its own key, the plane-issued JWT, replies under its inbox. */
    private record Standing(Connection connection, CompletableFuture<String> violation) implements AutoCloseable {
        JsonNode request(String body) throws Exception {
            Message reply = connection.request(SUBJECT, body.getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(30));
            assertNotNull(reply, "no answer within 30 s");
            return JSON.readTree(reply.getData());
        }

        @Override
        public void close() throws InterruptedException {
            connection.close();
        }
    }

    private static Standing standing(LifecycleFixture x, String owner, String actor, String instanceId) throws Exception {
        Identity identity = Identity.create();
        ManagerAuthority.ServiceAuthority authority = x.plane.managers().issueServiceAuthority(Principal.of(owner, actor), new InstanceId(instanceId),
                identity.id(), Optional.empty());
        CompletableFuture<String> violation = new CompletableFuture<>();
        Options options = new Options.Builder().server(x.nats.url()).authHandler(new Creds(authority.jwt(), identity)
                .authHandler()).inboxPrefix("_INBOX_" + identity.id()).noReconnect().errorListener(new ErrorListener() {
                    @Override
                    public void errorOccurred(Connection conn, String error) {
                        if (error.contains("Permissions Violation")) {
                            violation.complete(error);
                        }
                    }
                }).build();
        return new Standing(Nats.connect(options), violation);
    }

    private static String body(String actor, String uid) {
        return "{\"v\":1,\"actor\":\"" + actor + "\",\"lifecycleUid\":\"" + uid + "\"}";
    }

    private static void assertError(JsonNode reply, String code, String says) {
        assertEquals(1, reply.path("v").asInt(), reply.toString());
        assertEquals(code, reply.path("error").path("code").asText(), reply.toString());
        assertTrue(reply.path("error").path("message").asText().contains(says), reply.toString());
    }

    @Test
    void aCandidateManagerRetiresItsOwnersManagedLifecycleOverNats(NatsBrokers brokers) throws Exception {
        try (LifecycleFixture x = new LifecycleFixture(brokers, stateDir)) {
            PlaneConnection admin = x.plane.connections().get(x.plane.connections().size() - 1);
            assertEquals(PlaneConnection.Role.ADMIN, admin.role(), "opened last");
            assertEquals("cotal:auth-admin:alpha", admin.name());
            assertEquals(PlaneConnection.Status.CONNECTED, admin.status());

            x.plane.ledger().grantActor(Principal.of(OWNER, "mgr"), GRANT);
            LifecycleUid uid = ActorTokens.newLifecycleUid();
            ActorRow agent = x.plane.ledger().grantManagedActor(Principal.of(OWNER, "agent"), GRANT,
                    ActorTokens.tokenHash(ActorTokens.newActorToken()), uid);
            x.plane.lifecycles().activateManaged(Principal.of(OWNER, "agent"), uid);
            String bearer = x.bearer(agent);
            try (TestManager manager = TestManager.candidate(x.plane, x.nats, OWNER, "mgr", IID);
                 Standing rail = standing(x, OWNER, "mgr", IID);
                 LifecycleFixture.Watched connected = x.connect("agent", bearer)) {
                assertError(rail.request(body("agent", uid.value())), "failed-precondition", "still at lifecycle");
                assertError(rail.request("{\"v\":1,\"owner\":\"" + OWNER + "\",\"actor\":\"agent\",\"lifecycleUid\":\""
                        + uid + "\"}"), "bad-request", "owner"); // the owner is the spec's, never the body's
                assertError(rail.request("{\"v\":1,\"actor\":\"agent\"}"), "bad-request", "lifecycleUid");
                assertError(rail.request("{\"v\":2,\"actor\":\"agent\",\"lifecycleUid\":\"" + uid + "\"}"),
                        "bad-request", "v");
                assertError(rail.request("not json"), "bad-request", "body");
                assertError(rail.request(body("agent", "NOT-A-UID")), "bad-request", "lifecycleUid");

                x.plane.ledger().grantManagedActor(Principal.of(OWNER, "agent"), GRANT, ActorTokens.tokenHash(
                        ActorTokens.newActorToken()), ActorTokens.newLifecycleUid()); // the grant moves on
                JsonNode retired = rail.request(body("agent", uid.value()));
                assertEquals("retired", retired.path("outcome").asText(), retired.toString());
                assertEquals(OWNER, retired.path("owner").asText());
                assertEquals(Lifecycles.managedRetirementOpId(uid.value()), retired.path("opId").asText());
                assertEquals(1, retired.path("connectionsClosed").asInt(), retired.toString());
                connected.closed().get(5, TimeUnit.SECONDS); // the broker closed the live connection (KICK)
                Exception refused = x.refused("agent", bearer);
                assertTrue(refused.getMessage().contains("Authorization Violation"), refused.getMessage());
                assertEquals("alreadyRetired", rail.request(body("agent", uid.value())).path("outcome").asText());
                assertEquals(Lifecycles.State.RETIRED, x.plane.lifecycles().head(Principal.of(OWNER, "agent")).orElseThrow().state());

                x.plane.managers().freezeGate(new InstanceId(IID));
                assertError(rail.request(body("agent", uid.value())), "permission-denied", "is not a candidate (frozen)");
                assertTrue(!rail.violation().isDone(), "every request above was the credential's to send");
            }
        }
    }

    @Test
    void anotherInstancesStandingCredentialCannotSendOnTheSubject(NatsBrokers brokers) throws Exception {
        try (LifecycleFixture x = new LifecycleFixture(brokers, stateDir)) {
            String other = "u_bcdefghijklmnopqrstuvwxyz2";
            x.plane.ledger().grantActor(Principal.of(OWNER, "mgr"), GRANT);
            try (TestManager mine = TestManager.candidate(x.plane, x.nats, OWNER, "mgr", IID);
                 TestManager theirs = TestManager.forOwner(x.plane, x.nats, other);
                 Standing foreign = standing(x, other, "mgr", theirs.instanceId)) {
                foreign.connection().publish(SUBJECT, "_INBOX_x", body("agent",
                        ActorTokens.newLifecycleUid().value()).getBytes(StandardCharsets.UTF_8));
                foreign.connection().flush(Duration.ofSeconds(5));
                String violation = foreign.violation().get(10, TimeUnit.SECONDS);
                assertTrue(violation.contains("Publish") && violation.contains(SUBJECT),
                        "the broker refuses another instance's subject: " + violation);
            }
        }
    }

    @Test
    void anInstanceFloodingItsOwnSubjectDoesNotHoldBackAnotherInstancesRetirement(NatsBrokers brokers) throws Exception {
        try (LifecycleFixture x = new LifecycleFixture(brokers, stateDir)) {
            String other = "u_bcdefghijklmnopqrstuvwxyz2";
            x.plane.ledger().grantActor(Principal.of(OWNER, "mgr"), GRANT);
            LifecycleUid uid = ActorTokens.newLifecycleUid();
            x.plane.ledger().grantManagedActor(Principal.of(OWNER, "agent"), GRANT, ActorTokens.tokenHash(ActorTokens.newActorToken()),
                    uid);
            x.plane.lifecycles().activateManaged(Principal.of(OWNER, "agent"), uid);
            x.plane.ledger().grantManagedActor(Principal.of(OWNER, "agent"), GRANT, ActorTokens.tokenHash(ActorTokens.newActorToken()),
                    ActorTokens.newLifecycleUid()); // the grant moves on: the old lifecycle can be retired
            try (TestManager victim = TestManager.candidate(x.plane, x.nats, OWNER, "mgr", IID);
                 TestManager attacker = TestManager.forOwner(x.plane, x.nats, other);
                 Standing rail = standing(x, OWNER, "mgr", IID);
                 Standing flooder = standing(x, other, "mgr", attacker.instanceId)) {
                String floodSubject = "cotal.alpha.auth.admin." + attacker.instanceId + ".retire-managed";
                byte[] floodBody = body("agent", ActorTokens.newLifecycleUid().value()).getBytes(StandardCharsets.UTF_8);
                java.util.concurrent.atomic.AtomicBoolean flooding = new java.util.concurrent.atomic.AtomicBoolean(true);
                java.util.concurrent.CountDownLatch underWay = new java.util.concurrent.CountDownLatch(10);
                // well-formed requests of a candidate: each one reads the plane's records before it answers
                CompletableFuture<Void> flood = CompletableFuture.runAsync(() -> {
                    try {
                        while (flooding.get()) {
                            for (int i = 0; i < 500; i++) {
                                flooder.connection().publish(floodSubject, "_INBOX_flood", floodBody);
                            }
                            flooder.connection().flush(Duration.ofSeconds(5));
                            underWay.countDown();
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                try {
                    assertTrue(underWay.await(30, TimeUnit.SECONDS), "5,000 flood requests reached the broker first");
                    JsonNode retired = rail.request(body("agent", uid.value()));
                    assertEquals("retired", retired.path("outcome").asText(), retired.toString());
                } finally {
                    flooding.set(false);
                }
                flood.get(30, TimeUnit.SECONDS);
                assertTrue(!flooder.violation().isDone(), "the flooder sent on its own subject only");
            }
        }
    }
}
