package ai.cotal.auth;

import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.jwt.Permission;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.testbroker.NatsBroker;
import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Subscription;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A test-side run (SPEC §14.7, §14.8): a candidate manager whose cluster declares the three run
 * commands, a managed actor that runs, the manager's holder, a caller allowed to publish the
 * owner's served run-request subjects, and the manager's own subscription to them (it forwards
 * what it served). The manager and the caller are not part of the SDK.
 */
public final class RunParty implements AutoCloseable {
    public static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";
    public static final String IID = "runmgr00000000000000000001";
    public static final List<String> RUN_COMMANDS = List.of("run-start", "run-resume", "run-answer");
    public final AuthAuthorityPlane plane;
    public final TestManager manager;
    public final ManagerRuns.Holder holder;
    public final String workerUid;
    public final Connection caller;
    public final Subscription served;
    private final Connection managerServing;
    private int requests;

    private RunParty(AuthAuthorityPlane plane, NatsBroker nats, PlaneFixture f, List<String> commands) throws Exception {
        this.plane = plane;
        plane.ledger().grantActor(OWNER, "mgr", ActorLedger.Grant.of(List.of("supervise"), List.of(), List.of()));
        this.workerUid = ActorTokens.newLifecycleUid();
        plane.ledger().grantManagedActor(OWNER, "worker", ActorLedger.Grant.of(List.of("chat"), List.of(), List.of()),
                ActorTokens.tokenHash(ActorTokens.newActorToken()), workerUid);
        this.manager = TestManager.candidate(plane, nats, OWNER, "mgr", IID, commands);
        this.holder = new ManagerRuns.Holder(OWNER, "mgr", IID, List.of("supervise"));
        Identity identity = Identity.create();
        String jwt = NatsJwt.encode(ClaimSet.of(identity.id(), "test-run-caller", UserClaim.of(
                Permission.allow(List.of("cotal.alpha.svc.manager." + OWNER + ".run.>")), Permission.allow(List.of(
                        "_INBOX_" + identity.id() + ".>")), f.space.accountPublicKey(), null), f.clock.instant()),
                f.space.signing());
        this.caller = NatsConnector.builder().server(nats.url()).creds(new Creds(jwt, identity)).label("test-run-caller")
                .build().connect();
        this.managerServing = f.admin(nats); // the manager's serving side
        this.served = managerServing.subscribe("cotal.alpha.svc.manager." + OWNER + ".run.>");
        managerServing.flush(Duration.ofSeconds(5));
    }

    /** A party with the three run commands declared. */
    public static RunParty of(AuthAuthorityPlane plane, NatsBroker nats, PlaneFixture f) throws Exception {
        return new RunParty(plane, nats, f, RUN_COMMANDS);
    }

    /** A party whose manager cluster declares {@code commands}. */
    public static RunParty declaring(AuthAuthorityPlane plane, NatsBroker nats, PlaneFixture f, List<String> commands)
            throws Exception {
        return new RunParty(plane, nats, f, commands);
    }

    /** Admits {@code runId} for the worker. */
    public ManagerRuns.Admission admit(String runId) {
        return plane.managerRuns().admit(holder, new ManagerRuns.AdmissionRequest(runId, "worker", workerUid));
    }

    /** The manager writes a waiting checkpoint {@code token} of {@code runId}. */
    public void waiting(String runId, String token) throws Exception {
        manager.put(RunRecords.checkpointKey(IID, token), RunRecords.waiting(token, runId));
    }

    /**
     * The caller publishes a served request; the manager receives it (as it would, to serve it) and
     * answers the subject it forwards.
     */
    public String publishAndServe(ManagerRuns.Kind op, String runId, String checkpoint, String answerId) throws Exception {
        String subject = RunRecords.servedSubject("alpha", OWNER, op, runId, String.format("request%012d", ++requests));
        caller.publish(subject, RunRecords.envelope(runId, checkpoint, answerId));
        Message seen = served.nextMessage(Duration.ofSeconds(5));
        if (seen == null || !seen.getSubject().equals(subject)) {
            throw new AssertionError("the manager did not receive " + subject);
        }
        return subject;
    }

    /** A resume attempt, served when {@code served} is present. */
    public ManagerRuns.AttemptRequest resume(String runId, String attemptId, String checkpoint, Optional<String> served) {
        return new ManagerRuns.AttemptRequest(runId, attemptId, ManagerRuns.Kind.RESUME, Identity.create().id(),
                Optional.of(checkpoint), Optional.empty(), served);
    }

    /** A served answer attempt. */
    public ManagerRuns.AttemptRequest answer(String runId, String attemptId, String checkpoint, String answerId,
            String served) {
        return new ManagerRuns.AttemptRequest(runId, attemptId, ManagerRuns.Kind.ANSWER, Identity.create().id(),
                Optional.of(checkpoint), Optional.of(answerId), Optional.of(served));
    }

    /** A start attempt for {@code driver}. */
    public static ManagerRuns.AttemptRequest start(String runId, String attemptId, String driver) {
        return new ManagerRuns.AttemptRequest(runId, attemptId, ManagerRuns.Kind.START, driver, Optional.empty(),
                Optional.empty(), Optional.empty());
    }

    @Override
    public void close() throws Exception {
        caller.close();
        managerServing.close();
        manager.close();
    }
}
