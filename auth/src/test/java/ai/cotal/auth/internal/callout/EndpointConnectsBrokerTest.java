package ai.cotal.auth.internal.callout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.EndpointInstance;
import ai.cotal.auth.internal.callout.EndpointConnectsFixture.Watched;
import ai.cotal.core.id.SpaceName;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #18 parts 2 and 3 end to end on the real broker: an approved instance's service connects
 * through the callout as its server and answers a granted caller; the broker refuses an ungranted
 * caller; a revoke closes the serving connection and a caller-revoke the caller's, through the
 * broker, and the next connect meets the recheck.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class EndpointConnectsBrokerTest {
    private static final Duration WAIT = Duration.ofSeconds(5);

    @TempDir
    Path stateDir;

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(Message message) {
        return new String(message.getData(), StandardCharsets.UTF_8);
    }

    /** The service's answering loop: every request on the instance gets "sunny" and the subject it came on. */
    private static void serve(Watched server, EndpointInstance instance) throws Exception {
        Connection connection = server.connection();
        Dispatcher dispatcher = connection.createDispatcher(m -> connection.publish(m.getReplyTo(),
                bytes("sunny on " + m.getSubject())));
        dispatcher.subscribe(stem(instance) + ".>", "weather-workers");
        connection.flush(WAIT);
    }

    private static String stem(EndpointInstance instance) {
        return instance.subjectStem(new SpaceName("alpha").subjectPrefix());
    }

    @Test
    void anApprovedServiceAnswersItsGrantedCallerUntilARevokeClosesIt(NatsBrokers brokers) throws Exception {
        try (EndpointConnectsFixture x = new EndpointConnectsFixture(brokers, stateDir)) {
            long mark = x.nats.log().mark();
            EndpointInstance weather = x.approved("com.example.weather"); // reverse-DNS: its subjects carry com_example_weather
            String stem = stem(weather);
            assertTrue(stem.contains(".svc.ep.com_example_weather."), stem);
            try (Watched server = x.connect("weathersvc", x.servingBearer(weather))) {
                serve(server, weather);
                x.grant(weather, "alice", List.of("ask"));
                try (Watched alice = x.connect("alice", x.callerBearer("alice"))) {
                    Message answer = alice.connection().request(stem + ".ask", bytes("today?"), WAIT);
                    assertEquals("sunny on " + stem + ".ask", text(answer));
                    alice.connection().publish(stem + ".stream", bytes("not granted"));
                    String violation = alice.client().violation().get(5, TimeUnit.SECONDS);
                    assertTrue(violation.contains(stem + ".stream"), violation);
                }
                try (Watched bob = x.connect("bob", x.callerBearer("bob"))) {
                    bob.connection().publish(stem + ".ask", bytes("no grant"));
                    String violation = bob.client().violation().get(5, TimeUnit.SECONDS);
                    assertTrue(violation.contains(stem + ".ask"), "the broker refuses an ungranted caller: " + violation);
                }
                server.connection().publish(stem + ".ask", bytes("a server publishes replies only"));
                String violation = server.client().violation().get(5, TimeUnit.SECONDS);
                assertTrue(violation.contains(stem + ".ask"), violation);

                long revokedAt = System.nanoTime();
                HostResult revoked = x.host.serve(x.owner, new HostRequest.Revoke(EndpointConnectsFixture.rid(),
                        weather.endpoint(), weather.instanceId()));
                assertEquals(HostResult.Status.COMPLETED, revoked.status(), revoked.reason());
                assertEquals(HostResult.LiveConnections.allClosed(1, true), revoked.liveConnections(),
                        "the evidence says the broker closed the serving connection");
                long closedAt = server.closed().get(2, TimeUnit.SECONDS);
                assertTrue(closedAt - revokedAt < Duration.ofSeconds(2).toNanos(), "closed within 2 s of the revoke");
            }
            Exception refused = x.refused("weathersvc", x.servingBearer(weather));
            assertTrue(refused.getMessage().contains("Authorization Violation"), refused.getMessage());
            assertTrue(x.nats.log().containsSince(mark, "endpoint-server: the instance was revoked (gate retired: deny-new"
                    + " in effect)"), String.join("\n", x.nats.log().tail(50)));
        }
    }

    @Test
    void aRevokeWithoutTheEvictorCredentialStandsAndSaysWhyItsConnectionStayedOpen(NatsBrokers brokers) throws Exception {
        try (EndpointConnectsFixture x = new EndpointConnectsFixture(brokers, stateDir)) {
            EndpointInstance weather = x.approved("weather");
            try (Watched server = x.connect("weathersvc", x.servingBearer(weather))) {
                x.f.plane.store.delete(ai.cotal.workspace.SecretKeys.connectionEvictorCredsKey("alpha"));
                HostRequest.Revoke revoke = new HostRequest.Revoke(EndpointConnectsFixture.rid(), weather.endpoint(),
                        weather.instanceId());
                HostResult revoked = x.host.serve(x.owner, revoke);
                assertEquals(HostResult.Status.COMPLETED, revoked.status(), "revocation is never blocked: " + revoked.reason());
                assertEquals(HostResult.DenyNew.IN_EFFECT, revoked.denyNew(), "the gate is retired");
                assertEquals(new HostResult.LiveConnections(0, 1, true, HostResult.Unclosed.NO_EVICTOR_CREDENTIAL),
                        revoked.liveConnections(), "the connection stayed open, and the result says why");
                assertEquals(Connection.Status.CONNECTED, server.connection().getStatus(), "the broker was not asked");

                x.f.plane.store.putText(ai.cotal.workspace.SecretKeys.connectionEvictorCredsKey("alpha"),
                        x.f.plane.evictor.text()); // read at each revoke: the replay closes what is left
                HostResult replayed = x.host.serve(x.owner, revoke);
                assertEquals(HostResult.Completion.STORED, replayed.completion());
                assertEquals(HostResult.LiveConnections.allClosed(1, true), replayed.liveConnections());
                server.closed().get(2, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void aCallerRevokeClosesTheCallerAndItsNextConnectLacksTheSubject(NatsBrokers brokers) throws Exception {
        try (EndpointConnectsFixture x = new EndpointConnectsFixture(brokers, stateDir)) {
            EndpointInstance weather = x.approved("weather");
            String stem = stem(weather);
            try (Watched server = x.connect("weathersvc", x.servingBearer(weather))) {
                serve(server, weather);
                String ask = x.grant(weather, "alice", List.of("ask"));
                x.grant(weather, "alice", List.of("stream"));
                try (Watched alice = x.connect("alice", x.callerBearer("alice"))) {
                    assertEquals("sunny on " + stem + ".ask", text(alice.connection().request(stem + ".ask", bytes("?"),
                            WAIT)));
                    long revokedAt = System.nanoTime();
                    HostResult revoked = x.host.serve(x.owner, new HostRequest.CallerRevoke(EndpointConnectsFixture.rid(),
                            weather.endpoint(), weather.instanceId(), ask));
                    assertEquals(HostResult.Status.COMPLETED, revoked.status(), revoked.reason());
                    assertEquals(HostResult.LiveConnections.allClosed(1, true), revoked.liveConnections());
                    long closedAt = alice.closed().get(2, TimeUnit.SECONDS);
                    assertTrue(closedAt - revokedAt < Duration.ofSeconds(2).toNanos(), "closed within 2 s");
                }
                try (Watched again = x.connect("alice", x.callerBearer("alice"))) {
                    assertEquals("sunny on " + stem + ".stream", text(again.connection().request(stem + ".stream",
                            bytes("?"), WAIT)), "the grant still active is there at the next connect");
                    again.connection().publish(stem + ".ask", bytes("revoked"));
                    String violation = again.client().violation().get(5, TimeUnit.SECONDS);
                    assertTrue(violation.contains(stem + ".ask"), "the revoked grant is gone: " + violation);
                }
                assertEquals(Connection.Status.CONNECTED, server.connection().getStatus(), "a caller-revoke leaves the server");
            }
        }
    }

    @Test
    void aGateThatDoesNotAdmitRefusesTheServingConnectWithItsReason(NatsBrokers brokers) throws Exception {
        try (EndpointConnectsFixture x = new EndpointConnectsFixture(brokers, stateDir)) {
            long mark = x.nats.log().mark();
            EndpointInstance frozen = new EndpointInstance("weather", EndpointConnectsFixture.iid());
            x.register(frozen);
            x.refused("weathersvc", x.servingBearer(frozen));
            EndpointInstance refusedInstance = new EndpointInstance("weather", EndpointConnectsFixture.iid());
            x.register(refusedInstance);
            x.decide(refusedInstance, HostRequest.Decision.REFUSE);
            x.refused("weathersvc", x.servingBearer(refusedInstance));
            x.refused("weathersvc", x.servingBearer(new EndpointInstance("weather", EndpointConnectsFixture.iid())));
            String log = String.join("\n", x.nats.log().tail(80));
            assertTrue(x.nats.log().containsSince(mark, "endpoint-server: the instance is pending its owner's decision"
                    + " (gate frozen)"), log);
            assertTrue(x.nats.log().containsSince(mark, "endpoint-server: the owner refused the instance (gate retired)"),
                    log);
            assertTrue(x.nats.log().containsSince(mark, "endpoint-server: no such instance of this owner"), log);
        }
    }
}
