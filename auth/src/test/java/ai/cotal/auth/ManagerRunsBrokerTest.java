package ai.cotal.auth;

import ai.cotal.auth.records.RunRecords;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ManagerRuns.Attempt;
import ai.cotal.auth.ManagerRuns.Kind;
import ai.cotal.auth.internal.callout.CalloutFixture;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.id.Actor;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import ai.cotal.core.id.RunId;
import ai.cotal.core.issued.IssuedAuthority;
import ai.cotal.core.issued.IssuedRef;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * Manager runs (SPEC §14.7) and the observed-request guard (§14.8) against the broker, with a
 * test-side manager (registrar credential, its own subscription to the served subjects) and a
 * caller that publishes run requests.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class ManagerRunsBrokerTest {
    static final String RUN = "run00000000000000000000001";
    private final CalloutFixture cf = new CalloutFixture();
    private final PlaneFixture f = cf.plane;

    @TempDir
    Path stateDir;

    /** The call is refused with {@code code} and, unless null, exactly {@code message}. */
    private static CotalException refused(ErrorCode code, String message, Executable call) {
        CotalException e = assertThrows(CotalException.class, call);
        assertEquals(code, e.code(), e.getMessage());
        if (message != null) {
            assertEquals(message, e.getMessage());
        }
        return e;
    }

    private static String attemptId(int n) {
        return String.format("att%023d", n);
    }

    @Test
    void anAdmissionIsCreateOnlyReplayableAndNeedsSuperviseAndALiveManagedActor(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(cf::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
                RunParty p = RunParty.of(plane, nats, cf)) {
            ManagerRuns runs = plane.managerRuns();
            ManagerRuns.Holder spawnOnly = new ManagerRuns.Holder(Principal.of(RunParty.OWNER, "mgr"), new InstanceId(RunParty.IID), List.of("spawn",
                    "admin"));
            refused(ErrorCode.PERMISSION_DENIED, "manager run admission needs scope \"supervise\"; spawn/admin do not imply it",
                    () -> runs.admit(spawnOnly, new ManagerRuns.AdmissionRequest(new RunId(RUN), new Actor("worker"), new LifecycleUid(p.workerUid))));
            refused(ErrorCode.FAILED_PRECONDITION, "the managed actor " + RunParty.OWNER + ".mgr is not live at lifecycle "
                    + p.workerUid, () -> runs.admit(p.holder, new ManagerRuns.AdmissionRequest(new RunId(RUN), new Actor("mgr"), new LifecycleUid(p.workerUid))));
            ManagerRuns.Admission first = p.admit(RUN);
            assertFalse(first.replayed());
            ManagerRuns.Admission again = p.admit(RUN);
            assertTrue(again.replayed(), "the same terms replay");
            assertEquals(first.admittedAt(), again.admittedAt());
            plane.ledger().grantActor(Principal.of(RunParty.OWNER, "other"), Grant.of(List.of("chat"), List.of(), List.of()));
            LifecycleUid otherUid = ActorTokens.newLifecycleUid();
            plane.ledger().grantManagedActor(Principal.of(RunParty.OWNER, "worker2"), Grant.of(List.of("chat"), List.of(),
                    List.of()), ActorTokens.tokenHash(ActorTokens.newActorToken()), otherUid);
            refused(ErrorCode.ALREADY_EXISTS, "run " + RUN + " is admitted with other terms",
                    () -> runs.admit(p.holder, new ManagerRuns.AdmissionRequest(new RunId(RUN), new Actor("worker2"), otherUid)));
            refused(ErrorCode.BAD_REQUEST, "runId: must be 26 to 32 of [a-z0-9]",
                    () -> runs.admit(p.holder, new ManagerRuns.AdmissionRequest(new RunId("RUN"), new Actor("worker"), new LifecycleUid(p.workerUid))));
        }
    }

    @Test
    void attemptsAreCheckedAgainstScopeAdmissionCommandsAndCheckpoints(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(cf::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
                RunParty p = RunParty.of(plane, nats, cf)) {
            ManagerRuns runs = plane.managerRuns();
            String driver = Identity.create().id();
            refused(ErrorCode.FAILED_PRECONDITION, "run " + RUN + " has no admission",
                    () -> runs.issueAttempt(p.holder, RunParty.start(RUN, attemptId(1), driver)));
            p.admit(RUN);
            ManagerRuns.Holder noSupervise = new ManagerRuns.Holder(Principal.of(RunParty.OWNER, "mgr"), new InstanceId(RunParty.IID), List.of("spawn",
                    "admin"));
            refused(ErrorCode.PERMISSION_DENIED, "manager run attempt needs scope \"supervise\"; spawn/admin do not imply it",
                    () -> runs.issueAttempt(noSupervise, RunParty.start(RUN, attemptId(1), driver)));
            Attempt start = runs.issueAttempt(p.holder, RunParty.start(RUN, attemptId(1), driver));
            assertFalse(start.replayed());
            assertEquals(driver, NatsJwt.decode(start.jwt()).sub(), "the credential is the driver's");
            Attempt replay = runs.issueAttempt(p.holder, RunParty.start(RUN, attemptId(1), driver));
            assertTrue(replay.replayed());
            assertEquals(start.jwt(), replay.jwt(), "a replay answers the stored credential: nothing is issued twice");
            refused(ErrorCode.ALREADY_EXISTS, "attempt " + attemptId(1) + " of run " + RUN + " was issued with other terms",
                    () -> runs.issueAttempt(p.holder, RunParty.start(RUN, attemptId(1), Identity.create().id())));

            refused(ErrorCode.FAILED_PRECONDITION, "checkpoint cp1 of run " + RUN + " is not waiting",
                    () -> runs.issueAttempt(p.holder, p.resume(RUN, attemptId(2), "cp1", Optional.empty())));
            p.waiting(RUN, "cp1");
            Attempt resume = runs.issueAttempt(p.holder, p.resume(RUN, attemptId(2), "cp1", Optional.empty()));
            assertEquals(Kind.RESUME, resume.kind());

            p.manager.put(RunRecords.checkpointKey(RunParty.IID, "cp1"), RunRecords.resumed("cp1", RUN, "ans1"));
            String subject = p.publishAndServe(Kind.ANSWER, RUN, "cp1", "ans2");
            refused(ErrorCode.FAILED_PRECONDITION, "checkpoint cp1 of run " + RUN + " is settled",
                    () -> runs.issueAttempt(p.holder, p.answer(RUN, attemptId(3), "cp1", "ans2", subject)));

            p.manager.put(RunRecords.statusKey(RunParty.IID, RUN), RunRecords.status(RUN, "completed"));
            refused(ErrorCode.FAILED_PRECONDITION, "run " + RUN + " is completed",
                    () -> runs.issueAttempt(p.holder, RunParty.start(RUN, attemptId(4), driver)));
        }
    }

    @Test
    void theRegisteredClusterMustDeclareTheCommand(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(cf::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
                RunParty p = RunParty.declaring(plane, nats, cf, List.of("run-start"))) {
            p.admit(RUN);
            p.waiting(RUN, "cp1");
            refused(ErrorCode.FAILED_PRECONDITION, "the registered manager cluster declares no run-resume",
                    () -> plane.managerRuns().issueAttempt(p.holder, p.resume(RUN, attemptId(1), "cp1", Optional.empty())));
        }
    }

    @Test
    void aServedForwardNeedsItsOwnObservationOnceAndOnlyWhatItAsked(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(cf::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
                RunParty p = RunParty.of(plane, nats, cf)) {
            ManagerRuns runs = plane.managerRuns();
            p.admit(RUN);
            p.waiting(RUN, "cp1");
            p.waiting(RUN, "cp2");
            String never = RunRecords.servedSubject("alpha", RunParty.OWNER, Kind.RESUME, RUN, "neverpublished0001");
            refused(ErrorCode.PERMISSION_DENIED, "the plane observed no caller publish of " + never
                    + " it has not issued for", () -> runs.issueAttempt(p.holder, p.resume(RUN, attemptId(1), "cp1",
                            Optional.of(never))));

            String once = p.publishAndServe(Kind.RESUME, RUN, "cp1", null);
            assertFalse(runs.issueAttempt(p.holder, p.resume(RUN, attemptId(2), "cp1", Optional.of(once))).replayed());
            refused(ErrorCode.PERMISSION_DENIED, "the plane observed no caller publish of " + once
                    + " it has not issued for", () -> runs.issueAttempt(p.holder, p.resume(RUN, attemptId(3), "cp1",
                            Optional.of(once))));

            String asked = p.publishAndServe(Kind.RESUME, RUN, "cp1", null);
            refused(ErrorCode.PERMISSION_DENIED, "the forward asks for more than the observed request (checkpoint)",
                    () -> runs.issueAttempt(p.holder, p.resume(RUN, attemptId(4), "cp2", Optional.of(asked))));
            String resumeAsked = p.publishAndServe(Kind.RESUME, RUN, "cp1", null);
            refused(ErrorCode.PERMISSION_DENIED, "the forward asks for more than the observed request (kind)",
                    () -> runs.issueAttempt(p.holder, p.answer(RUN, attemptId(5), "cp1", "ans1", resumeAsked)));
            String answer = p.publishAndServe(Kind.ANSWER, RUN, "cp1", "ans1");
            refused(ErrorCode.PERMISSION_DENIED, "the forward asks for more than the observed request (answerId)",
                    () -> runs.issueAttempt(p.holder, p.answer(RUN, attemptId(6), "cp1", "ans2", answer)));
            String good = p.publishAndServe(Kind.ANSWER, RUN, "cp1", "ans1");
            assertEquals(Kind.ANSWER, runs.issueAttempt(p.holder, p.answer(RUN, attemptId(7), "cp1", "ans1", good)).kind());
        }
    }

    @Test
    void aForwardRightAfterThePublishIsNeverFalselyRefused(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(cf::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
                RunParty p = RunParty.of(plane, nats, cf)) {
            p.admit(RUN);
            p.waiting(RUN, "cp1");
            for (int i = 0; i < 1_000; i++) {
                String subject = p.publishAndServe(Kind.RESUME, RUN, "cp1", null); // the flush comes before the take
                Attempt a = plane.managerRuns().issueAttempt(p.holder, p.resume(RUN, attemptId(i), "cp1",
                        Optional.of(subject)));
                assertFalse(a.replayed(), "forward " + i);
            }
            assertEquals(0, plane.managerRuns().observedCount(), "every observation was taken once");
        }
    }

    /**
     * SPEC §14.7, the issuer window: the caller's own issuance (the accepted token its served
     * subject ends in) must resolve live before anything is issued. Revoked, or its actor's grant
     * revoked, after the publish: the forward is refused and no driver issuance is written.
     */
    @Test
    void aCallerRevokedAfterItsPublishGetsNothingIssued(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(cf::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
                RunParty p = RunParty.of(plane, nats, cf); Connection admin = f.admin(nats)) {
            p.admit(RUN);
            p.waiting(RUN, "cp1");
            IssuedAuthority issued = IssuedAuthority.bind(admin, "alpha", source -> true, Clock.systemUTC());
            IssuedRef caller = issued.accepted(p.callerToken).orElseThrow(() -> new AssertionError("the caller's issuance"));
            String subject = p.publishAndServe(Kind.RESUME, RUN, "cp1", null);
            issued.revoke(caller);
            ManagerRuns.AttemptRequest forward = p.resume(RUN, attemptId(1), "cp1", Optional.of(subject));
            CotalException revoked = refused(ErrorCode.PERMISSION_DENIED, null,
                    () -> plane.managerRuns().issueAttempt(p.holder, forward));
            assertTrue(revoked.getMessage().startsWith("the caller of " + subject + " holds no live issuance: ")
                    && revoked.getMessage().endsWith(" is revoked"), revoked.getMessage());
            assertTrue(issued.accepted(IssuedAuthority.acceptedToken(forward.driver())).isEmpty(),
                    "no driver issuance was written");

            String nonce = CalloutFixture.nonce("tablet", "revokedgrant-0001");
            try (CalloutFixture.Client tablet = cf.connect(nats, p.callerBearer("tablet"), nonce)) {
                String token = IssuedAuthority.acceptedToken(nonce);
                String asked = RunRecords.servedSubject("alpha", RunParty.OWNER, Kind.RESUME, RUN, token);
                tablet.connection().publish(asked, RunRecords.envelope(RUN, "cp1", null));
                tablet.connection().flush(Duration.ofSeconds(5));
                plane.ledger().revoke(Principal.of(RunParty.OWNER, "tablet"));
                ManagerRuns.AttemptRequest again = p.resume(RUN, attemptId(2), "cp1", Optional.of(asked));
                CotalException e = refused(ErrorCode.PERMISSION_DENIED, null,
                        () -> plane.managerRuns().issueAttempt(p.holder, again));
                assertTrue(e.getMessage().startsWith("the caller of " + asked + " holds no live issuance: "), e.getMessage());
                assertTrue(issued.accepted(IssuedAuthority.acceptedToken(again.driver())).isEmpty());
            }
        }
    }

    /**
     * SPEC §14.8, the bounds: another caller's flood of more requests than the plane keeps in all
     * drops only that caller's own observations; the victim's forward is still issued.
     */
    @Test
    void anotherCallersFloodDropsNoneOfTheVictimsObservations(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(cf::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
                RunParty p = RunParty.of(plane, nats, cf)) {
            p.admit(RUN);
            p.waiting(RUN, "cp1");
            String victim = p.publishAndServe(Kind.RESUME, RUN, "cp1", null);
            String nonce = CalloutFixture.nonce("tablet", "flooder-0001");
            try (CalloutFixture.Client flooder = cf.connect(nats, p.callerBearer("tablet"), nonce)) {
                String token = IssuedAuthority.acceptedToken(nonce);
                for (int i = 0; i <= ManagerRuns.MAX_OBSERVED; i++) {
                    String run = String.format("run%023d", i + 2);
                    flooder.connection().publish(RunRecords.servedSubject("alpha", RunParty.OWNER, Kind.RESUME, run, token),
                            RunRecords.envelope(run, "cp1", null));
                }
                flooder.connection().flush(Duration.ofSeconds(30));
                assertTrue(flooder.violation().getNow(null) == null, "the flood was the flooder's to publish");
            }
            assertFalse(plane.managerRuns().issueAttempt(p.holder, p.resume(RUN, attemptId(1), "cp1",
                    Optional.of(victim))).replayed(), "the victim's observation survived the flood");
            assertTrue(plane.managerRuns().observedCount() <= 64, "the flooder kept its own newest only");
        }
    }

    /**
     * SPEC §14.8, when the observation is taken: a refused forward (another owner's manager, here)
     * leaves it for the caller's own manager; an attempt that fails after the take (a reused
     * driver key) puts it back; a repeat of an issued served attempt replays the stored credential.
     * And the forward must name the observed run.
     */
    @Test
    void aRefusedOrFailedForwardLeavesTheObservationAndAnIssuedOneReplays(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(cf::config);
        String otherOwner = "u_zyxwvutsrqponmlkjihgfedcba";
        String otherIid = "runmgr00000000000000000002";
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
                RunParty p = RunParty.of(plane, nats, cf)) {
            ManagerRuns runs = plane.managerRuns();
            p.admit(RUN);
            p.waiting(RUN, "cp1");
            plane.ledger().grantActor(Principal.of(otherOwner, "mgr"), Grant.of(List.of("supervise"), List.of(), List.of()));
            try (TestManager other = TestManager.candidate(plane, nats, otherOwner, "mgr", otherIid, RunParty.RUN_COMMANDS)) {
                ManagerRuns.Holder foreign = new ManagerRuns.Holder(Principal.of(otherOwner, "mgr"), new InstanceId(otherIid), List.of("supervise"));
                String subject = p.publishAndServe(Kind.RESUME, RUN, "cp1", null);
                refused(ErrorCode.PERMISSION_DENIED, "the forward asks for more than the observed request (owner)",
                        () -> runs.issueAttempt(foreign, p.resume(RUN, attemptId(1), "cp1", Optional.of(subject))));
                ManagerRuns.AttemptRequest first = p.resume(RUN, attemptId(2), "cp1", Optional.of(subject));
                Attempt issued = runs.issueAttempt(p.holder, first);
                assertFalse(issued.replayed(), "the foreign forward left the observation for the caller's own manager");

                Attempt replay = runs.issueAttempt(p.holder, first);
                assertTrue(replay.replayed(), "a served attempt whose answer was lost replays");
                assertEquals(issued.jwt(), replay.jwt());

                String again = p.publishAndServe(Kind.RESUME, RUN, "cp1", null);
                ManagerRuns.AttemptRequest reused = new ManagerRuns.AttemptRequest(new RunId(RUN), new RunId(attemptId(3)), Kind.RESUME,
                        first.driver(), Optional.of("cp1"), Optional.empty(), Optional.of(again));
                CotalException e = assertThrows(CotalException.class, () -> runs.issueAttempt(p.holder, reused));
                assertEquals(ErrorCode.ALREADY_EXISTS, e.code(), e.getMessage());
                assertFalse(runs.issueAttempt(p.holder, p.resume(RUN, attemptId(4), "cp1", Optional.of(again))).replayed(),
                        "the attempt that failed after the take put the observation back");
            }
        }
    }

    /** SPEC §14.7 step 2: a forward that names another (admitted, waiting) run than the observed one is refused. */
    @Test
    void aForwardOfAnotherRunThanTheObservedOneIsRefused(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(cf::config);
        String run2 = "run00000000000000000000002";
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
                RunParty p = RunParty.of(plane, nats, cf)) {
            p.admit(RUN);
            p.admit(run2);
            p.waiting(run2, "cp9");
            String subject = p.publishAndServe(Kind.RESUME, RUN, "cp9", null);
            refused(ErrorCode.PERMISSION_DENIED, "the forward asks for more than the observed request (runId)",
                    () -> plane.managerRuns().issueAttempt(p.holder, p.resume(run2, attemptId(1), "cp9",
                            Optional.of(subject))));
        }
    }

    /**
     * SPEC §14.8, {@code takeObserved}: the issuer connection is flushed before the look. The
     * broker's delivery of the request to the issuer connection is held back (a relay in front of
     * the plane) while the manager has already received it: only a look after the flush finds it.
     */
    @Test
    void theFlushComesBeforeTheLook(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(cf::config);
        try (IssuerFaultProxy relay = new IssuerFaultProxy(nats.url(), Duration.ofMillis(1_500));
                AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).server(relay.url()).build());
                RunParty p = RunParty.of(plane, nats, cf)) {
            p.admit(RUN);
            p.waiting(RUN, "cp1");
            relay.arm();
            for (int i = 0; i < 3; i++) {
                String subject = p.publishAndServe(Kind.RESUME, RUN, "cp1", null);
                assertFalse(plane.managerRuns().issueAttempt(p.holder, p.resume(RUN, attemptId(i), "cp1",
                        Optional.of(subject))).replayed(), "forward " + i);
            }
        }
    }
}
