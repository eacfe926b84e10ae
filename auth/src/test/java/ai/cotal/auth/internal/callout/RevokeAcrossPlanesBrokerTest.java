package ai.cotal.auth.internal.callout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.EndpointInstance;
import ai.cotal.auth.PlaneClaimRefusal;
import ai.cotal.auth.ScannerKick;
import ai.cotal.auth.internal.callout.EndpointConnectsFixture.Watched;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.id.SpaceName;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.workspace.SecretKeys;
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
 * Issue #18 parts 2 and 3 across a plane restart (SPEC §13.16): a serving connection and a
 * granted caller admitted by one plane stay on the broker when that plane closes or crashes; a
 * revoke and a caller-revoke through the next plane find them through the broker (CONNZ, by the
 * endpoint keys their user names carry) and close them within 2 s, and the evidence counts them.
 * Without the membership-observer credential the evidence says the broker was not swept.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class RevokeAcrossPlanesBrokerTest {
    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final long TWO_SECONDS = Duration.ofSeconds(2).toNanos();

    @TempDir
    Path stateDir;

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String stem(EndpointInstance instance) {
        return instance.subjectStem(new SpaceName("alpha").subjectPrefix());
    }

    /** The service answers every request on its instance with the subject it came on. */
    private static void serve(Watched server, EndpointInstance instance) throws Exception {
        Connection connection = server.connection();
        Dispatcher dispatcher = connection.createDispatcher(m -> connection.publish(m.getReplyTo(),
                bytes("sunny on " + m.getSubject())));
        dispatcher.subscribe(stem(instance) + ".>", "weather-workers");
        connection.flush(WAIT);
    }

    private static String ask(Watched caller, EndpointInstance instance) throws Exception {
        Message answer = caller.connection().request(stem(instance) + ".ask", bytes("today?"), WAIT);
        return new String(answer.getData(), StandardCharsets.UTF_8);
    }

    /** Closes the first plane the ordinary way (its claim released). */
    private static void close(AuthAuthorityPlane plane) {
        plane.close();
    }

    /** Crashes the first plane the way the plane-claim tests do: the broker drops its ledger scanner and the plane fences. */
    private static void crash(EndpointConnectsFixture x, AuthAuthorityPlane plane) {
        try {
            ScannerKick.kick(x.nats, x.f.plane.space.accountPublicKey(), ScannerKick.ledgerScanner("alpha"),
                    Creds.parse(x.f.plane.store.getText(SecretKeys.membershipObserverCredsKey("alpha")).orElseThrow()),
                    x.f.plane.evictor);
            plane.fenced().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("the first plane did not fence", e);
        }
    }

    private static HostResult revoke(EndpointConnectsFixture x, EndpointInstance instance) {
        HostResult revoked = x.host.serve(x.owner, new HostRequest.Revoke(EndpointConnectsFixture.rid(), instance.endpoint(),
                instance.instanceId()));
        assertEquals(HostResult.Status.COMPLETED, revoked.status(), revoked.reason());
        return revoked;
    }

    private static HostResult callerRevoke(EndpointConnectsFixture x, HostRequest.CallerRevoke request) {
        HostResult revoked = x.host.serve(x.owner, request);
        assertEquals(HostResult.Status.COMPLETED, revoked.status(), revoked.reason());
        return revoked;
    }

    /**
     * Both revokes through the second plane: the caller-revoke closes the caller only, the revoke
     * the server; each within 2 s of its call, each counted closed by a complete sweep.
     */
    private static void revokeThroughTheNextPlane(EndpointConnectsFixture x, EndpointInstance weather, String grantId,
            Watched server, Watched alice) throws Exception {
        assertEquals("sunny on " + stem(weather) + ".ask", ask(alice, weather),
                "the connections the first plane admitted still serve and call");

        long callerRevokedAt = System.nanoTime();
        HostResult callerRevoked = callerRevoke(x, new HostRequest.CallerRevoke(EndpointConnectsFixture.rid(),
                weather.endpoint(), weather.instanceId(), grantId));
        assertEquals(HostResult.LiveConnections.allClosed(1, true), callerRevoked.liveConnections(),
                "the broker sweep found the caller the first plane admitted and the broker closed it");
        long aliceClosedAt = alice.closed().get(2, TimeUnit.SECONDS);
        assertTrue(aliceClosedAt - callerRevokedAt < TWO_SECONDS, "the caller closed within 2 s of the caller-revoke");
        assertEquals(Connection.Status.CONNECTED, server.connection().getStatus(), "a caller-revoke leaves the server");

        long revokedAt = System.nanoTime();
        HostResult revoked = revoke(x, weather);
        assertEquals(HostResult.LiveConnections.allClosed(1, true), revoked.liveConnections(),
                "the broker sweep found the serving connection the first plane admitted and the broker closed it");
        long serverClosedAt = server.closed().get(2, TimeUnit.SECONDS);
        assertTrue(serverClosedAt - revokedAt < TWO_SECONDS, "the server closed within 2 s of the revoke");
        Exception refused = x.refused("weathersvc", x.servingBearer(weather));
        assertTrue(refused.getMessage().contains("Authorization Violation"), refused.getMessage());
    }

    @Test
    void aNewPlaneClosesWhatTheClosedPlaneAdmitted(NatsBrokers brokers) throws Exception {
        try (EndpointConnectsFixture x = new EndpointConnectsFixture(brokers, stateDir)) {
            EndpointInstance weather = x.approved("weather");
            try (Watched server = x.connect("weathersvc", x.servingBearer(weather))) {
                serve(server, weather);
                String grantId = x.grant(weather, "alice", List.of("ask"));
                try (Watched alice = x.connect("alice", x.callerBearer("alice"))) {
                    x.replacePlane(RevokeAcrossPlanesBrokerTest::close);
                    revokeThroughTheNextPlane(x, weather, grantId, server, alice);
                }
            }
        }
    }

    @Test
    void aReclaimingPlaneClosesWhatTheCrashedPlaneAdmitted(NatsBrokers brokers) throws Exception {
        try (EndpointConnectsFixture x = new EndpointConnectsFixture(brokers, stateDir)) {
            EndpointInstance weather = x.approved("weather");
            try (Watched server = x.connect("weathersvc", x.servingBearer(weather))) {
                serve(server, weather);
                String grantId = x.grant(weather, "alice", List.of("ask"));
                try (Watched alice = x.connect("alice", x.callerBearer("alice"))) {
                    AuthAuthorityPlane crashed = x.replacePlane(first -> crash(x, first));
                    assertEquals(2, x.plane.claim().generation(), "the next plane reclaimed the crashed plane's claim");
                    revokeThroughTheNextPlane(x, weather, grantId, server, alice);
                    assertThrows(PlaneClaimRefusal.class, crashed::close, "the crashed plane lost its claim");
                }
            }
        }
    }

    @Test
    void withoutTheObserverCredentialTheEvidenceSaysTheBrokerWasNotSwept(NatsBrokers brokers) throws Exception {
        try (EndpointConnectsFixture x = new EndpointConnectsFixture(brokers, stateDir)) {
            EndpointInstance weather = x.approved("weather");
            try (Watched server = x.connect("weathersvc", x.servingBearer(weather))) {
                serve(server, weather);
                String grantId = x.grant(weather, "alice", List.of("ask"));
                try (Watched alice = x.connect("alice", x.callerBearer("alice"))) {
                    x.replacePlane(RevokeAcrossPlanesBrokerTest::close);
                    String observer = x.f.plane.store.getText(SecretKeys.membershipObserverCredsKey("alpha")).orElseThrow();
                    x.f.plane.store.delete(SecretKeys.membershipObserverCredsKey("alpha"));
                    HostRequest.CallerRevoke request = new HostRequest.CallerRevoke(EndpointConnectsFixture.rid(),
                            weather.endpoint(), weather.instanceId(), grantId);
                    HostResult unswept = callerRevoke(x, request);
                    assertEquals(HostResult.LiveConnections.allClosed(0, false), unswept.liveConnections(),
                            "the new plane recorded nothing and could not ask the broker: it says so");
                    assertEquals("sunny on " + stem(weather) + ".ask", ask(alice, weather),
                            "the caller the first plane admitted still holds the revoked grant");

                    x.f.plane.store.putText(SecretKeys.membershipObserverCredsKey("alpha"), observer);
                    long resentAt = System.nanoTime();
                    HostResult replayed = callerRevoke(x, request);
                    assertEquals(HostResult.Completion.STORED, replayed.completion());
                    assertEquals(HostResult.LiveConnections.allClosed(1, true), replayed.liveConnections(),
                            "sending the caller-revoke again sweeps the broker and closes the caller");
                    assertTrue(alice.closed().get(2, TimeUnit.SECONDS) - resentAt < TWO_SECONDS);
                    assertEquals(Connection.Status.CONNECTED, server.connection().getStatus());
                }
            }
        }
    }
}
