package ai.cotal.auth;

import ai.cotal.auth.records.RunRecords;
import ai.cotal.auth.internal.callout.AuthCallout;
import ai.cotal.auth.internal.callout.CalloutFixture;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.id.Actor;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import ai.cotal.core.id.RunId;
import ai.cotal.core.issued.IssuedAuthority;
import ai.cotal.testbroker.NatsBroker;
import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.Subscription;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A test-side run (SPEC §14.7, §14.8): a candidate manager whose cluster declares the three run
 * commands, a managed actor that runs, the manager's holder, a caller (the owner's interactive
 * actor {@code laptop}, a {@code manager-caller} the callout admitted with the three run scopes,
 * so it may publish the owner's served run-request subjects, a resume's or answer's ending in its
 * accepted token {@link #callerToken}, and nothing of another owner), and the
 * manager's own subscription to them (it forwards what it served). The manager is not part of the
 * SDK; the caller's credential is the callout's.
 */
public final class RunParty implements AutoCloseable {
    public static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";
    public static final String IID = "runmgr00000000000000000001";
    /** Another owner, and its manager's instance id, for a second party ({@link #ofOwner}). */
    public static final String OTHER_OWNER = "u_zyxwvutsrqponmlkjihgfedcba";
    public static final String OTHER_IID = "runmgr00000000000000000002";
    public static final List<String> RUN_COMMANDS = List.of("run-start", "run-resume", "run-answer");
    /** The manager subjects of space {@code alpha}: {@code cotal.alpha.svc.manager.}. */
    public static final String SUBJECTS = "cotal.alpha.svc.manager.";
    public final AuthAuthorityPlane plane;
    /** The party's owner and its manager's instance id ({@link #OWNER} and {@link #IID} unless {@link #ofOwner}). */
    public final String owner;
    public final String iid;
    public final TestManager manager;
    public final ManagerRuns.Holder holder;
    public final String workerUid;
    public final Connection caller;
    /** The caller's accepted token: the last token of its served resume and answer subjects (SPEC §14.8). */
    public final String callerToken;
    /** The broker's permission violations on the caller's connection, in order. */
    public final BlockingQueue<String> callerViolations = new LinkedBlockingQueue<>();
    public final Subscription served;
    private final Connection managerServing;
    private final AuthCallout callout;
    private int requests;

    private RunParty(AuthAuthorityPlane plane, NatsBroker nats, CalloutFixture cf, String owner, String iid,
            List<String> commands) throws Exception {
        this.plane = plane;
        this.owner = owner;
        this.iid = iid;
        plane.ledger().grantActor(Principal.of(owner, "mgr"), Grant.of(List.of("supervise"), List.of(), List.of()));
        this.workerUid = ActorTokens.newLifecycleUid().value();
        plane.ledger().grantManagedActor(Principal.of(owner, "worker"), Grant.of(List.of("chat"), List.of(), List.of()),
                ActorTokens.tokenHash(ActorTokens.newActorToken()), new LifecycleUid(workerUid));
        this.manager = TestManager.candidate(plane, nats, owner, "mgr", iid, commands);
        this.holder = new ManagerRuns.Holder(Principal.of(owner, "mgr"), new InstanceId(iid), List.of("supervise"));
        this.callout = cf.responder(nats, plane);
        String nonce = InboxNonce.of(Principal.of(owner, "laptop"), "runcaller-" + iid);
        this.callerToken = IssuedAuthority.acceptedToken(nonce);
        this.caller = Nats.connect(cf.clientOptions(nats, callerBearer("laptop"), nonce)
                .errorListener(new ErrorListener() {
                    @Override
                    public void errorOccurred(Connection conn, String error) {
                        if (error.contains("Permissions Violation")) {
                            callerViolations.add(error);
                        }
                    }
                }).build());
        this.managerServing = cf.plane.admin(nats); // the manager's serving side
        this.served = managerServing.subscribe(SUBJECTS + owner + ".run.>");
        managerServing.flush(Duration.ofSeconds(5));
    }

    /**
     * A {@code manager-caller} bearer of the owner's interactive actor {@code actor} (granted
     * here) with the three run scopes.
     */
    public String callerBearer(String actor) {
        ActorRow row = plane.ledger().grantActor(Principal.of(owner, actor), Grant.of(List.of("chat", "run-start",
                "run-resume", "run-answer"), List.of(), List.of()));
        CredentialId credential = plane.credentials().mint(Principal.of(owner, actor), row.lifecycleUid()).id();
        return plane.bearers().issue(BearerRequest.managerCaller(Principal.of(owner, actor), RUN_COMMANDS, row.lifecycleUid(), credential,
                Duration.ofMinutes(5), new InstanceId(iid)));
    }

    /** A party with the three run commands declared. */
    public static RunParty of(AuthAuthorityPlane plane, NatsBroker nats, CalloutFixture f) throws Exception {
        return new RunParty(plane, nats, f, OWNER, IID, RUN_COMMANDS);
    }

    /** A party of {@code owner}, its manager instance {@code iid}, with the three run commands declared. */
    public static RunParty ofOwner(AuthAuthorityPlane plane, NatsBroker nats, CalloutFixture f, String owner, String iid)
            throws Exception {
        return new RunParty(plane, nats, f, owner, iid, RUN_COMMANDS);
    }

    /** A party whose manager cluster declares {@code commands}. */
    public static RunParty declaring(AuthAuthorityPlane plane, NatsBroker nats, CalloutFixture f, List<String> commands)
            throws Exception {
        return new RunParty(plane, nats, f, OWNER, IID, commands);
    }

    /** Admits {@code runId} for the worker. */
    public ManagerRuns.Admission admit(String runId) {
        return plane.managerRuns().admit(holder, new ManagerRuns.AdmissionRequest(new RunId(runId), new Actor("worker"), new LifecycleUid(workerUid)));
    }

    /** The manager writes a waiting checkpoint {@code token} of {@code runId}. */
    public void waiting(String runId, String token) throws Exception {
        manager.put(RunRecords.checkpointKey(iid, token), RunRecords.waiting(token, runId));
    }

    /**
     * The caller publishes a served request (a start's request id is a counter's, a resume's or an
     * answer's is the caller's accepted token); the manager receives it (as it would, to serve it)
     * and answers the subject it forwards.
     */
    public String publishAndServe(ManagerRuns.Kind op, String runId, String checkpoint, String answerId) throws Exception {
        String subject = RunRecords.servedSubject("alpha", owner, op, runId, op == ManagerRuns.Kind.START
                ? String.format("request%012d", ++requests) : callerToken);
        caller.publish(subject, RunRecords.envelope(runId, checkpoint, answerId));
        Message seen = served.nextMessage(Duration.ofSeconds(5));
        if (seen == null || !seen.getSubject().equals(subject)) {
            throw new AssertionError("the manager did not receive " + subject);
        }
        return subject;
    }

    /**
     * Connects with a user JWT the plane signed for {@code identity}'s key (a standing or a driver
     * credential), its inbox under that key; the broker's permission violations land in
     * {@code violations}, in order.
     */
    public static Connection connect(NatsBroker nats, String jwt, Identity identity, BlockingQueue<String> violations)
            throws Exception {
        return Nats.connect(new Options.Builder().server(nats.url()).authHandler(new Creds(jwt, identity).authHandler())
                .inboxPrefix("_INBOX_" + identity.id()).noReconnect().errorListener(new ErrorListener() {
                    @Override
                    public void errorOccurred(Connection conn, String error) {
                        if (error.contains("Permissions Violation")) {
                            violations.add(error);
                        }
                    }
                }).build());
    }

    /** The next permission violation the broker reported on the caller's connection; null after 10 s. */
    public String nextViolation() throws InterruptedException {
        return callerViolations.poll(10, TimeUnit.SECONDS);
    }

    /** A resume attempt, served when {@code served} is present. */
    public ManagerRuns.AttemptRequest resume(String runId, String attemptId, String checkpoint, Optional<String> served) {
        return new ManagerRuns.AttemptRequest(new RunId(runId), new RunId(attemptId), ManagerRuns.Kind.RESUME, Identity.create().id(),
                Optional.of(checkpoint), Optional.empty(), served);
    }

    /** A served answer attempt. */
    public ManagerRuns.AttemptRequest answer(String runId, String attemptId, String checkpoint, String answerId,
            String served) {
        return new ManagerRuns.AttemptRequest(new RunId(runId), new RunId(attemptId), ManagerRuns.Kind.ANSWER, Identity.create().id(),
                Optional.of(checkpoint), Optional.of(answerId), Optional.of(served));
    }

    /** A start attempt for {@code driver}. */
    public static ManagerRuns.AttemptRequest start(String runId, String attemptId, String driver) {
        return new ManagerRuns.AttemptRequest(new RunId(runId), new RunId(attemptId), ManagerRuns.Kind.START, driver, Optional.empty(),
                Optional.empty(), Optional.empty());
    }

    @Override
    public void close() throws Exception {
        caller.close();
        managerServing.close();
        manager.close();
        callout.close();
    }
}
