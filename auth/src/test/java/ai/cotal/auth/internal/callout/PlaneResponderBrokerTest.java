package ai.cotal.auth.internal.callout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.InboxNonce;
import ai.cotal.auth.PlaneHealth;
import ai.cotal.core.id.Principal;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A plane opened with its space's callout account answers the auth callout itself
 * ({@code AuthPlaneOptions.Builder.callout}): its responder admits a member, {@code health()}
 * reports it, and it is gone once the plane closed. A plane opened without one answers nothing.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class PlaneResponderBrokerTest {
    private final CalloutFixture f = new CalloutFixture();

    @TempDir
    Path stateDir;

    private static String nonce(String actor) {
        return InboxNonce.forPrincipal(Principal.of(CalloutFixture.OWNER, actor));
    }

    @Test
    void thePlanesOwnResponderAdmitsAMemberIsReportedAndGoesWithThePlane(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.plane.options(nats, stateDir).callout(f.callout).build());
        String bearer;
        try {
            PlaneHealth.Callout open = plane.health().callout().orElseThrow();
            assertTrue(open.answering(), open.toString());
            assertEquals("connected", open.status());
            bearer = f.bearer(plane, "laptop", List.of("general"), List.of("general"), Duration.ofMinutes(5));
            try (CalloutFixture.Client member = f.connect(nats, bearer, nonce("laptop"))) {
                assertEquals(Connection.Status.CONNECTED, member.connection().getStatus(), "admitted by the plane's responder");
                member.connection().flush(Duration.ofSeconds(5));
            }
        } finally {
            plane.close();
        }
        PlaneHealth.Callout closed = plane.health().callout().orElseThrow();
        assertFalse(closed.answering(), "a closed plane's responder left the queue group: " + closed);
        assertEquals("closed", closed.status());
        f.refused(nats, bearer, nonce("laptop")); // nothing answers the callout now
        try (AuthAuthorityPlane next = AuthAuthorityPlane.open(f.plane.options(nats, stateDir).build());
             AuthCallout responder = f.responder(nats, next);
             CalloutFixture.Client member = f.connect(nats, bearer, nonce("laptop"))) {
            assertEquals(Connection.Status.CONNECTED, member.connection().getStatus(),
                    "the same bearer is admitted once a responder answers again (a control for the refusal)");
        }
    }

    @Test
    void aPlaneWithoutACalloutAccountAnswersNoConnect(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.plane.options(nats, stateDir).build())) {
            assertTrue(plane.health().callout().isEmpty(), "no responder to report");
            String bearer = f.bearer(plane, "laptop", List.of("general"), List.of("general"), Duration.ofMinutes(5));
            f.refused(nats, bearer, nonce("laptop"));
            try (AuthCallout responder = f.responder(nats, plane);
                 CalloutFixture.Client member = f.connect(nats, bearer, nonce("laptop"))) {
                assertEquals(Connection.Status.CONNECTED, member.connection().getStatus(),
                        "the same bearer is admitted once a responder answers for the plane (a control)");
                assertTrue(responder.answering());
            }
        }
    }
}
