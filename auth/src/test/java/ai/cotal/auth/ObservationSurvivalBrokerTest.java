package ai.cotal.auth;

import ai.cotal.auth.records.RunRecords;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ManagerRuns.Kind;
import ai.cotal.auth.internal.callout.CalloutFixture;
import ai.cotal.auth.internal.run.ObservedRunRequests;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.issued.IssuedAuthority;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a caller's observed run request survives on the plane (SPEC §14.7, §14.8): an issuer
 * window that cannot be opened (the observation is taken only inside the window, so the forward
 * is made again without a new publish), and another owner's flood (each owner's observations are
 * bounded in its own table, so a flood evicts only the flooder's own).
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class ObservationSurvivalBrokerTest {
    private static final String RUN = ManagerRunsBrokerTest.RUN;
    private final CalloutFixture cf = new CalloutFixture();
    private final PlaneFixture f = cf.plane;

    @TempDir
    Path stateDir;

    /**
     * The window's connection is closed at its CONNECT (a relay in front of the plane): the
     * forward is refused {@code unavailable} and the observation stays. Once the window can open
     * again the same forward is issued, with no new publish by the caller.
     */
    @Test
    void aWindowThatCannotOpenLeavesTheObservationForTheSameForward(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(cf::config);
        try (IssuerFaultProxy relay = new IssuerFaultProxy(nats.url(), Duration.ZERO);
                AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).server(relay.url()).build());
                RunParty p = RunParty.of(plane, nats, cf)) {
            p.admit(RUN);
            p.waiting(RUN, "cp1");
            String subject = p.publishAndServe(Kind.RESUME, RUN, "cp1", null);
            ManagerRuns.AttemptRequest forward = p.resume(RUN, "att00000000000000000000001", "cp1", Optional.of(subject));
            relay.refuseWindows(true);
            CotalException e = assertThrows(CotalException.class, () -> plane.managerRuns().issueAttempt(p.holder, forward));
            assertEquals(ErrorCode.UNAVAILABLE, e.code(), e.getMessage());
            assertTrue(e.getMessage().startsWith("cotal:auth-issuer-window:alpha: "), e.getMessage());
            assertEquals(1, relay.refusedWindows(), "the window's connection was refused once");
            assertEquals(1, plane.managerRuns().observedCount(), "the failed window open left the observation");

            relay.refuseWindows(false);
            ManagerRuns.Attempt issued = plane.managerRuns().issueAttempt(p.holder, forward);
            assertFalse(issued.replayed(), "the same forward is issued once the window opens, without a new publish");
            assertEquals(1, relay.refusedWindows());
            assertEquals(0, plane.managerRuns().observedCount(), "the issued forward took the observation");
        }
    }

    /**
     * Owner A's callers (one interactive actor, connected under more nonces than the per-owner
     * bound holds of their per-caller bound) flood A's own manager with resumes under their own
     * accepted tokens, past A's bound, after owner B's caller published once: B's manager
     * forwards after the flood and is issued; A kept its own newest only.
     */
    @Test
    void anotherOwnersFloodPastItsBoundLeavesTheObservation(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(cf::config);
        ObservedRunRequests.Bounds bounds = ObservedRunRequests.Bounds.PLANE;
        int flooders = bounds.perOwner() / bounds.perCaller() + 1; // each within its caller bound, together past A's
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
                RunParty a = RunParty.of(plane, nats, cf);
                RunParty b = RunParty.ofOwner(plane, nats, cf, RunParty.OTHER_OWNER,
                        RunParty.OTHER_IID)) {
            b.admit(RUN);
            b.waiting(RUN, "cp1");
            String victim = b.publishAndServe(Kind.RESUME, RUN, "cp1", null);

            String bearer = a.callerBearer("tablet");
            List<CalloutFixture.Client> callers = new ArrayList<>();
            try {
                for (int c = 0; c < flooders; c++) {
                    String nonce = CalloutFixture.nonce("tablet", String.format("flooder-%04d", c));
                    CalloutFixture.Client caller = cf.connect(nats, bearer, nonce);
                    callers.add(caller);
                    String token = IssuedAuthority.acceptedToken(nonce);
                    for (int i = 0; i < bounds.perCaller(); i++) {
                        String run = String.format("run%023d", i + 2);
                        caller.connection().publish(RunRecords.servedSubject("alpha", a.owner, Kind.RESUME, run, token),
                                RunRecords.envelope(run, "cp1", null));
                    }
                }
                for (CalloutFixture.Client caller : callers) {
                    caller.connection().flush(Duration.ofSeconds(30));
                    assertNull(caller.violation().getNow(null), "the flood was A's callers' own to publish");
                }
            } finally {
                for (CalloutFixture.Client caller : callers) {
                    caller.close();
                }
            }
            assertTrue(flooders * bounds.perCaller() > bounds.perOwner(), "the flood is past A's bound");

            ManagerRuns.Attempt issued = plane.managerRuns().issueAttempt(b.holder, b.resume(RUN,
                    "att00000000000000000000001", "cp1", Optional.of(victim)));
            assertFalse(issued.replayed(), "B's observation survived A's flood: its forward is issued");
            assertEquals(bounds.perOwner(), plane.managerRuns().observedCount(), "A kept its own newest, to its bound");
        }
    }
}
