package ai.cotal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ManagerRuns.Attempt;
import ai.cotal.auth.ManagerRuns.AttemptRequest;
import ai.cotal.auth.ManagerRuns.Kind;
import ai.cotal.auth.internal.callout.CalloutFixture;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.RunId;
import ai.cotal.core.issued.IssuedAuthority;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Subscription;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * Operator attempts (SPEC §14.7): the space's operator resumes and answers a candidate manager's
 * run, once per attempt id, its audit id in the row; a relayed caller request is bound to the
 * plane's observation and recorded as an issuance like a manager's forward; a start, another
 * owner's instance, a frozen manager and a checkpoint that is not waiting are refused.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class OperatorRunAttemptsBrokerTest {
    static final String RUN = "run00000000000000000000001";
    static final Granter.Operator OPS = new Granter.Operator("ops@example.org");
    private final CalloutFixture cf = new CalloutFixture();
    private final PlaneFixture f = cf.plane;

    @TempDir
    Path stateDir;

    /** The call is refused with exactly {@code code} and {@code message}. */
    private static void refused(ErrorCode code, String message, Executable call) {
        CotalException e = assertThrows(CotalException.class, call);
        assertEquals(List.of(code, message), List.of(e.code(), e.getMessage()));
    }

    private static String attemptId(int n) {
        return String.format("att%023d", n);
    }

    private static AttemptRequest answer(String attemptId, String checkpoint, String answerId, Optional<String> served) {
        return new AttemptRequest(new RunId(RUN), new RunId(attemptId), Kind.ANSWER, Identity.create().id(), Optional.of(checkpoint),
                Optional.of(answerId), served);
    }

    private static JsonNode row(Connection admin, String attemptId) throws Exception {
        return new ObjectMapper().readTree(admin.keyValue("cotal_admission_alpha").get("run.manager." + RUN + ".attempt."
                + attemptId).getValue());
    }

    @Test
    void anOperatorResumesAWaitingRunOnceAndItsDriverDrivesOnlyThatRun(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(cf::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
                RunParty p = RunParty.of(plane, nats, cf); Connection admin = f.admin(nats)) {
            ManagerRuns runs = plane.managerRuns();
            p.admit(RUN);
            p.waiting(RUN, "cp1");
            Identity driver = Identity.create();
            AttemptRequest resume = new AttemptRequest(new RunId(RUN), new RunId(attemptId(1)), Kind.RESUME, driver.id(), Optional.of("cp1"),
                    Optional.empty(), Optional.empty());
            Attempt issued = runs.issueOperatorAttempt(OPS, new Owner(RunParty.OWNER), new InstanceId(RunParty.IID), resume);
            assertFalse(issued.replayed());
            JsonNode row = row(admin, attemptId(1));
            assertEquals("ops@example.org", row.path("operator").asText(), row.toString());
            assertTrue(row.path("issued").isMissingNode(), "the operator's own word records no issuance: " + row);

            Attempt again = runs.issueOperatorAttempt(OPS, new Owner(RunParty.OWNER), new InstanceId(RunParty.IID), resume);
            assertTrue(again.replayed());
            assertEquals(issued.jwt(), again.jwt(), "a replay answers the stored credential");
            String otherTerms = "attempt " + attemptId(1) + " of run " + RUN + " was issued with other terms";
            refused(ErrorCode.ALREADY_EXISTS, otherTerms, () -> runs.issueOperatorAttempt(new Granter.Operator("someone"),
                    new Owner(RunParty.OWNER), new InstanceId(RunParty.IID), resume));
            refused(ErrorCode.ALREADY_EXISTS, otherTerms, () -> runs.issueAttempt(p.holder, resume));

            BlockingQueue<String> violations = new LinkedBlockingQueue<>();
            Subscription steps = admin.subscribe("cotal.alpha.run.>");
            admin.flush(Duration.ofSeconds(5));
            try (Connection drive = RunParty.connect(nats, issued.jwt(), driver, violations)) {
                drive.publish("cotal.alpha.run." + RunParty.OWNER + "." + RUN + ".step", new byte[0]);
                drive.flush(Duration.ofSeconds(5));
                Message step = steps.nextMessage(Duration.ofSeconds(10));
                assertNotNull(step, "the driver drives its run");
                assertEquals("cotal.alpha.run." + RunParty.OWNER + "." + RUN + ".step", step.getSubject());
                String other = "cotal.alpha.run." + RunParty.OWNER + ".run00000000000000000000002.step";
                drive.publish(other, new byte[0]);
                String refused = violations.poll(10, TimeUnit.SECONDS);
                assertNotNull(refused, "the broker refuses another run");
                assertTrue(refused.contains(other), refused);
            }
        }
    }

    @Test
    void anOperatorAnswersOnItsOwnWordOrRelaysAnObservedRequestOnce(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(cf::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
                RunParty p = RunParty.of(plane, nats, cf); Connection admin = f.admin(nats)) {
            ManagerRuns runs = plane.managerRuns();
            p.admit(RUN);
            p.waiting(RUN, "cp1");
            AttemptRequest own = answer(attemptId(1), "cp1", "ans1", Optional.empty());
            assertFalse(runs.issueOperatorAttempt(OPS, new Owner(RunParty.OWNER), new InstanceId(RunParty.IID), own).replayed());
            IssuedAuthority issued = IssuedAuthority.bind(admin, "alpha", source -> true, Clock.systemUTC());
            assertTrue(issued.accepted(IssuedAuthority.acceptedToken(own.driver())).isEmpty(),
                    "the operator's own answer opens no window");

            p.waiting(RUN, "cp2");
            String subject = p.publishAndServe(Kind.ANSWER, RUN, "cp2", "ans2");
            AttemptRequest relayed = answer(attemptId(2), "cp2", "ans2", Optional.of(subject));
            assertFalse(runs.issueOperatorAttempt(OPS, new Owner(RunParty.OWNER), new InstanceId(RunParty.IID), relayed).replayed());
            assertTrue(issued.accepted(IssuedAuthority.acceptedToken(relayed.driver())).isPresent(),
                    "a relayed caller request is recorded as an issuance");
            assertEquals(subject, row(admin, attemptId(2)).path("served").asText());
            refused(ErrorCode.PERMISSION_DENIED, "the plane observed no caller publish of " + subject
                    + " it has not issued for", () -> runs.issueOperatorAttempt(OPS, new Owner(RunParty.OWNER), new InstanceId(RunParty.IID),
                            answer(attemptId(3), "cp2", "ans2", Optional.of(subject))));
        }
    }

    @Test
    void anOperatorStartsNothingAndDrivesOnlyACandidatesWaitingRun(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(cf::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
                RunParty p = RunParty.of(plane, nats, cf)) {
            ManagerRuns runs = plane.managerRuns();
            p.admit(RUN);
            p.waiting(RUN, "cp1");
            refused(ErrorCode.BAD_REQUEST, "kind: an operator drives resume and answer only", () ->
                    runs.issueOperatorAttempt(OPS, new Owner(RunParty.OWNER), new InstanceId(RunParty.IID), RunParty.start(RUN, attemptId(1),
                            Identity.create().id())));
            refused(ErrorCode.BAD_REQUEST, "instanceId: must be 26 to 32 of [a-z0-9]", () -> runs.issueOperatorAttempt(OPS,
                    new Owner(RunParty.OWNER), new InstanceId("NOT-AN-INSTANCE"), p.resume(RUN, attemptId(1), "cp1", Optional.empty())));
            refused(ErrorCode.FAILED_PRECONDITION, "checkpoint cp9 of run " + RUN + " is not waiting", () ->
                    runs.issueOperatorAttempt(OPS, new Owner(RunParty.OWNER), new InstanceId(RunParty.IID), p.resume(RUN, attemptId(1), "cp9",
                            Optional.empty())));
            String other = "u_zyxwvutsrqponmlkjihgfedcba";
            CotalException otherOwner = assertThrows(CotalException.class, () -> runs.issueOperatorAttempt(OPS, new Owner(other),
                    new InstanceId(RunParty.IID), p.resume(RUN, attemptId(1), "cp1", Optional.empty())));
            assertEquals(ErrorCode.PERMISSION_DENIED, otherOwner.code(), otherOwner.getMessage());
            assertTrue(otherOwner.getMessage().contains("not a candidate (other-owner)"), otherOwner.getMessage());

            plane.managers().freezeGate(new InstanceId(RunParty.IID));
            CotalException frozen = assertThrows(CotalException.class, () -> runs.issueOperatorAttempt(OPS,
                    new Owner(RunParty.OWNER), new InstanceId(RunParty.IID), p.resume(RUN, attemptId(1), "cp1", Optional.empty())));
            assertEquals(ErrorCode.PERMISSION_DENIED, frozen.code(), frozen.getMessage());
            assertTrue(frozen.getMessage().contains("not a candidate (frozen)"), frozen.getMessage());
        }
    }
}
