package ai.cotal.auth.internal.callout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.Grant;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.ManagerRuns;
import ai.cotal.auth.records.RunRecords;
import ai.cotal.auth.ServingGate;
import ai.cotal.auth.TestManager;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.LifecycleUid;
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
 * The callout's manager gate (SPEC §14.4): a {@code manager-caller} connect is admitted only while
 * the owner has a candidate manager (open gate, spec at its registration revision, status observed
 * at its epoch); an interactive row's is issued, a managed row's is the plain mint.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class ManagerCallerBrokerTest {
    private static final String IID = "mgr0000000000000000000000001";
    private final CalloutFixture f = new CalloutFixture();

    @TempDir
    Path stateDir;

    private static String caller(AuthAuthorityPlane plane, ActorRow row) {
        CredentialId credential = plane.credentials().mint(row.principal(), row.lifecycleUid()).id();
        return plane.bearers().issue(BearerRequest.managerCaller(row.principal(), List.of("chat"), row.lifecycleUid(),
                credential, Duration.ofMinutes(5)));
    }

    private static long accepted(Connection admin) throws Exception {
        return admin.jetStreamManagement().getStreamInfo("KV_cotal_accepted_alpha").getStreamState().getMsgCount();
    }

    @Test
    void aManagerCallerConnectsOnlyWhileItsOwnerHasACandidateManager(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        long mark = nats.log().mark();
        try (AuthAuthorityPlane plane = f.open(nats, stateDir); AuthCallout callout = f.responder(nats, plane)) {
            ActorRow laptop = plane.ledger().grantActor(Principal.of(CalloutFixture.OWNER, "laptop"),
                    Grant.of(List.of("chat"), List.of(), List.of()));
            plane.ledger().grantActor(Principal.of(CalloutFixture.OWNER, "mgr"), Grant.of(List.of("chat"), List.of(), List.of()));
            String bearer = caller(plane, laptop);

            Exception none = f.refused(nats, bearer, CalloutFixture.nonce("laptop", "caller-000001"));
            assertTrue(none.getMessage().contains("Authorization Violation"), none.getMessage());
            assertTrue(nats.log().containsSince(mark, "has no candidate manager instance"),
                    "the broker logs the callout's reason:\n" + String.join("\n", nats.log().tail(30)));

            try (TestManager manager = TestManager.of(plane, nats, CalloutFixture.OWNER, "mgr", IID)) {
                long spec = manager.spec(List.of(manager.managerCluster()));
                ServingGate gate = plane.managers().openGate(Principal.of(CalloutFixture.OWNER, "mgr"), new InstanceId(IID));
                f.refused(nats, bearer, CalloutFixture.nonce("laptop", "caller-000002")); // open, not yet observed
                manager.status(spec, gate.processEpoch());
                try (CalloutFixture.Client client = f.connect(nats, bearer, CalloutFixture.nonce("laptop", "caller-000003"))) {
                    assertEquals(Connection.Status.CONNECTED, client.connection().getStatus(),
                            "registered, open and observed at the gate's epoch: admitted");
                }
                plane.managers().freezeGate(new InstanceId(IID));
                long frozen = nats.log().mark();
                f.refused(nats, bearer, CalloutFixture.nonce("laptop", "caller-000004"));
                assertTrue(nats.log().containsSince(frozen, "has no candidate manager instance"),
                        String.join("\n", nats.log().tail(30)));
            }
        }
    }

    @Test
    void aManagedRowGetsThePlainMint(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = f.open(nats, stateDir); AuthCallout callout = f.responder(nats, plane);
             Connection admin = f.plane.admin(nats)) {
            plane.ledger().grantActor(Principal.of(CalloutFixture.OWNER, "mgr"), Grant.of(List.of("chat"), List.of(), List.of()));
            ActorRow agent = plane.ledger().grantManagedActor(Principal.of(CalloutFixture.OWNER, "worker"),
                    Grant.of(List.of("chat"), List.of(), List.of()), "0".repeat(64), new LifecycleUid("workerlifecycle00000000001"));
            String bearer = caller(plane, agent);
            f.refused(nats, bearer, CalloutFixture.nonce("worker", "plain-000001"));
            try (TestManager manager = TestManager.candidate(plane, nats, CalloutFixture.OWNER, "mgr", IID)) {
                long before = accepted(admin);
                String nonce = CalloutFixture.nonce("worker", "plain-000002");
                try (CalloutFixture.Client client = f.connect(nats, bearer, nonce)) {
                    assertEquals(Connection.Status.CONNECTED, client.connection().getStatus());
                    client.connection().publish("cotal.alpha.svc.manager." + CalloutFixture.OWNER + ".chat", new byte[0]);
                    client.connection().publish("$JS.API.DIRECT.GET.KV_cotal_accepted_alpha.$KV.cotal_accepted_alpha"
                            + ".accepted.v1." + ai.cotal.core.issued.IssuedAuthority.acceptedToken(nonce), new byte[0]);
                    client.connection().flush(Duration.ofSeconds(5));
                    String violation = client.violation().get(10, java.util.concurrent.TimeUnit.SECONDS);
                    assertTrue(violation.contains("accepted"), "the plain mint carries no read of an accepted row: "
                            + violation);
                }
                assertEquals(before, accepted(admin), "the plain mint records nothing");
            }
        }
    }

    /**
     * SPEC §14.8: a managed row's manager-caller holds no issuance the plane could resolve at a
     * forward, so its run scopes grant it the start requests only; the broker refuses its resume.
     */
    @Test
    void aManagedRowPublishesRunStartsButNoResume(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = f.open(nats, stateDir); AuthCallout callout = f.responder(nats, plane)) {
            plane.ledger().grantActor(Principal.of(CalloutFixture.OWNER, "mgr"), Grant.of(List.of("chat"), List.of(), List.of()));
            List<String> runs = List.of("run-start", "run-resume");
            ActorRow agent = plane.ledger().grantManagedActor(Principal.of(CalloutFixture.OWNER, "worker"),
                    Grant.of(runs, List.of(), List.of()), "0".repeat(64), new LifecycleUid("workerlifecycle00000000001"));
            CredentialId credential = plane.credentials().mint(agent.principal(), agent.lifecycleUid()).id();
            String bearer = plane.bearers().issue(BearerRequest.managerCaller(agent.principal(), runs,
                    agent.lifecycleUid(), credential, Duration.ofMinutes(5)));
            try (TestManager manager = TestManager.candidate(plane, nats, CalloutFixture.OWNER, "mgr", IID)) {
                String nonce = CalloutFixture.nonce("worker", "plainrun-000001");
                try (CalloutFixture.Client client = f.connect(nats, bearer, nonce)) {
                    String run = "run00000000000000000000001";
                    client.connection().publish(RunRecords.servedSubject("alpha", CalloutFixture.OWNER,
                            ManagerRuns.Kind.START, run, "startrequest00001"), new byte[0]);
                    String resume = RunRecords.servedSubject("alpha", CalloutFixture.OWNER, ManagerRuns.Kind.RESUME, run,
                            ai.cotal.core.issued.IssuedAuthority.acceptedToken(nonce));
                    client.connection().publish(resume, new byte[0]);
                    client.connection().flush(Duration.ofSeconds(5));
                    String violation = client.violation().get(10, java.util.concurrent.TimeUnit.SECONDS);
                    assertTrue(violation.contains(resume), "the first refusal is the resume, not the start: " + violation);
                }
            }
        }
    }

    @Test
    void aBearerNamingItsManagerInstanceIsJudgedOnThatInstance(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        String second = "mgr0000000000000000000000002";
        try (AuthAuthorityPlane plane = f.open(nats, stateDir); AuthCallout callout = f.responder(nats, plane)) {
            ActorRow laptop = plane.ledger().grantActor(Principal.of(CalloutFixture.OWNER, "laptop"),
                    Grant.of(List.of("chat"), List.of(), List.of()));
            plane.ledger().grantActor(Principal.of(CalloutFixture.OWNER, "mgr"), Grant.of(List.of("chat"), List.of(), List.of()));
            try (TestManager one = TestManager.candidate(plane, nats, CalloutFixture.OWNER, "mgr", IID);
                 TestManager two = TestManager.candidate(plane, nats, CalloutFixture.OWNER, "mgr", second)) {
                long mark = nats.log().mark();
                f.refused(nats, caller(plane, laptop), CalloutFixture.nonce("laptop", "named-000001"));
                assertTrue(nats.log().containsSince(mark, "has 2 candidate manager instances; name one"),
                        String.join("\n", nats.log().tail(30)));
                try (CalloutFixture.Client client = f.connect(nats, named(plane, laptop, second),
                        CalloutFixture.nonce("laptop", "named-000002"))) {
                    assertEquals(Connection.Status.CONNECTED, client.connection().getStatus(), "the named candidate admits");
                }
                plane.managers().freezeGate(new InstanceId(second));
                long frozen = nats.log().mark();
                f.refused(nats, named(plane, laptop, second), CalloutFixture.nonce("laptop", "named-000003"));
                assertTrue(nats.log().containsSince(frozen, "manager instance " + second + " of " + CalloutFixture.OWNER
                        + " is not a candidate (frozen)"), String.join("\n", nats.log().tail(30)));
            }
        }
    }

    private static String named(AuthAuthorityPlane plane, ActorRow row, String instanceId) {
        CredentialId credential = plane.credentials().mint(row.principal(), row.lifecycleUid()).id();
        return plane.bearers().issue(BearerRequest.managerCaller(row.principal(), List.of("chat"), row.lifecycleUid(),
                credential, Duration.ofMinutes(5), new InstanceId(instanceId)));
    }
}
