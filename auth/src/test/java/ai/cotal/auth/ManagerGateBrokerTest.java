package ai.cotal.auth;

import ai.cotal.auth.records.ManagerRecords;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ManagerAuthority.Verdict;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * The manager gate (SPEC §14.3, §14.4) against the broker: a test-side manager registers through
 * its own registrar credential, the plane opens and freezes its gate, the verdict follows the gate,
 * the spec and the status; {@code registeredManagerCluster} refuses what does not verify.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class ManagerGateBrokerTest {
    static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";
    static final String OTHER = "u_zyxwvutsrqponmlkjihgfedcba";
    static final String IID = "mgr0000000000000000000000001";
    private final PlaneFixture f = new PlaneFixture();

    @TempDir
    Path stateDir;

    private static CotalException refused(ErrorCode code, String message, Executable call) {
        CotalException e = assertThrows(CotalException.class, call);
        assertEquals(code, e.code(), e.getMessage());
        assertEquals(message, e.getMessage());
        return e;
    }

    @Test
    void theVerdictFollowsTheGateTheSpecAndTheStatus(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build())) {
            plane.ledger().grantActor(Principal.of(OWNER, "mgr"), Grant.of(List.of("chat"), List.of(), List.of()));
            ManagerAuthority managers = plane.managers();
            try (TestManager manager = TestManager.of(plane, nats, OWNER, "mgr", IID)) {
                assertEquals(Verdict.NO_GATE, managers.verdict(new Owner(OWNER), new InstanceId(IID)));
                refused(ErrorCode.FAILED_PRECONDITION, "found no manager service spec for instance " + IID,
                        () -> managers.openGate(Principal.of(OWNER, "mgr"), new InstanceId(IID)));
                long spec = manager.spec(List.of(manager.managerCluster()));
                ServingGate gate = managers.openGate(Principal.of(OWNER, "mgr"), new InstanceId(IID));
                assertEquals(1, gate.processEpoch());
                assertEquals(spec, gate.registrationRevision());
                assertEquals(OWNER + ".mgr", gate.principal());
                assertEquals(Verdict.UNOBSERVED, managers.verdict(new Owner(OWNER), new InstanceId(IID)), "no status yet");
                refused(ErrorCode.PERMISSION_DENIED, "manager-caller: " + OWNER + " has no candidate manager instance",
                        () -> managers.selectInstance(new Owner(OWNER), Optional.empty()));
                manager.status(spec, 1);
                assertEquals(Verdict.CANDIDATE, managers.verdict(new Owner(OWNER), new InstanceId(IID)));
                assertEquals(new InstanceId(IID), managers.selectInstance(new Owner(OWNER), Optional.empty()));
                managers.authorizeCaller(new Owner(OWNER), new InstanceId(IID));
                assertEquals(Verdict.OTHER_OWNER, managers.verdict(new Owner(OTHER), new InstanceId(IID)));
                refused(ErrorCode.PERMISSION_DENIED, "manager-caller: " + OTHER + " has no candidate manager instance",
                        () -> managers.selectInstance(new Owner(OTHER), Optional.empty()));

                long respec = manager.spec(List.of(manager.managerCluster()));
                assertEquals(Verdict.STALE_REGISTRATION, managers.verdict(new Owner(OWNER), new InstanceId(IID)), "a new spec needs a new opening");
                ServingGate reopened = managers.openGate(Principal.of(OWNER, "mgr"), new InstanceId(IID));
                assertEquals(2, reopened.processEpoch(), "a re-opening advances the epoch");
                assertEquals(respec, reopened.registrationRevision());
                assertEquals(Verdict.UNOBSERVED, managers.verdict(new Owner(OWNER), new InstanceId(IID)));
                manager.status(respec, 1);
                assertEquals(Verdict.OTHER_EPOCH, managers.verdict(new Owner(OWNER), new InstanceId(IID)), "the predecessor's epoch is fenced");
                manager.status(respec, 2);
                assertEquals(Verdict.CANDIDATE, managers.verdict(new Owner(OWNER), new InstanceId(IID)));

                ServingGate frozen = managers.freezeGate(new InstanceId(IID));
                assertEquals(ServingGate.State.FROZEN, frozen.state());
                assertEquals(2, frozen.processEpoch());
                assertEquals(frozen, managers.freezeGate(new InstanceId(IID)), "freezing a frozen gate writes nothing");
                assertEquals(Verdict.FROZEN, managers.verdict(new Owner(OWNER), new InstanceId(IID)));
                refused(ErrorCode.PERMISSION_DENIED, "manager-caller: manager instance " + IID + " of " + OWNER
                        + " is not a candidate (frozen)", () -> managers.authorizeCaller(new Owner(OWNER), new InstanceId(IID)));
                refused(ErrorCode.FAILED_PRECONDITION, "the manager gate of " + IID + " is frozen; register a new instance",
                        () -> managers.openGate(Principal.of(OWNER, "mgr"), new InstanceId(IID)));
            }
        }
    }

    @Test
    void selectionNeedsExactlyOneCandidateAndAGrantedPrincipal(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build())) {
            assertEquals(ErrorCode.PERMISSION_DENIED, assertThrows(CotalException.class, () -> plane.managers()
                    .registrarCredential(Principal.of(OWNER, "mgr"), new InstanceId(IID), java.time.Duration.ofMinutes(1))).code(), "not granted");
            plane.ledger().grantActor(Principal.of(OWNER, "mgr"), Grant.of(List.of("chat"), List.of(), List.of()));
            try (TestManager one = TestManager.candidate(plane, nats, OWNER, "mgr", IID);
                 TestManager two = TestManager.candidate(plane, nats, OWNER, "mgr", "mgr0000000000000000000000002")) {
                refused(ErrorCode.FAILED_PRECONDITION, "manager-caller: " + OWNER
                        + " has 2 candidate manager instances; name one", () -> plane.managers().selectInstance(new Owner(OWNER),
                                Optional.empty()));
                assertEquals(new InstanceId(two.instanceId), plane.managers().selectInstance(new Owner(OWNER),
                        Optional.of(new InstanceId(two.instanceId))));
                plane.managers().freezeGate(new InstanceId(one.instanceId));
                assertEquals(new InstanceId(two.instanceId), plane.managers().selectInstance(new Owner(OWNER), Optional.empty()));
            }
            assertEquals(ErrorCode.BAD_REQUEST, assertThrows(CotalException.class,
                    () -> plane.managers().openGate(Principal.of(OWNER, "mgr"), new InstanceId("NOT-AN-ID"))).code());
        }
    }

    @Test
    void aRegistrarIsRefusedForAnInstanceAnotherPrincipalRegisteredOrServes(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build())) {
            for (String owner : List.of(OWNER, OTHER)) {
                plane.ledger().grantActor(Principal.of(owner, "mgr"), Grant.of(List.of("chat"), List.of(), List.of()));
            }
            plane.ledger().grantActor(Principal.of(OWNER, "other"), Grant.of(List.of("chat"), List.of(), List.of()));
            ManagerAuthority managers = plane.managers();
            try (TestManager manager = TestManager.of(plane, nats, OWNER, "mgr", IID)) {
                manager.spec(List.of(manager.managerCluster()));
                refused(ErrorCode.PERMISSION_DENIED, "manager instance " + IID + " is registered by another principal",
                        () -> managers.registrarCredential(Principal.of(OTHER, "mgr"), new InstanceId(IID), java.time.Duration.ofMinutes(1)));
                refused(ErrorCode.PERMISSION_DENIED, "manager instance " + IID + " is registered by another principal",
                        () -> managers.registrarCredential(Principal.of(OWNER, "other"), new InstanceId(IID), java.time.Duration.ofMinutes(1)));
                managers.openGate(Principal.of(OWNER, "mgr"), new InstanceId(IID));
                refused(ErrorCode.PERMISSION_DENIED, "manager instance " + IID + " is served by another principal",
                        () -> managers.registrarCredential(Principal.of(OTHER, "mgr"), new InstanceId(IID), java.time.Duration.ofMinutes(1)));
                // the registered principal itself may renew its registrar (a restarted manager)
                managers.registrarCredential(Principal.of(OWNER, "mgr"), new InstanceId(IID), java.time.Duration.ofMinutes(1));
            }
        }
    }

    @Test
    void registeredManagerClusterRefusesWhatDoesNotVerify(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build())) {
            plane.ledger().grantActor(Principal.of(OWNER, "mgr"), Grant.of(List.of("chat"), List.of(), List.of()));
            ManagerAuthority managers = plane.managers();
            try (TestManager manager = TestManager.of(plane, nats, OWNER, "mgr", IID)) {
                refused(ErrorCode.FAILED_PRECONDITION, "found no manager service spec at the gate's registration revision",
                        () -> managers.registeredCluster(new Owner(OWNER), new InstanceId(IID), 1));
                long spec = manager.spec(List.of(manager.managerCluster()));
                ManagerAuthority.ManagerCluster cluster = managers.registeredCluster(new Owner(OWNER), new InstanceId(IID), spec);
                assertEquals(ManagerRecords.MANAGER_URN, cluster.urn());
                assertEquals(List.of("spawn", "status"), cluster.commands());
                refused(ErrorCode.FAILED_PRECONDITION, "found no manager service spec at the gate's registration revision",
                        () -> managers.registeredCluster(new Owner(OWNER), new InstanceId(IID), spec + 1));

                long foreign = manager.specOf(OTHER, List.of(manager.managerCluster()));
                refused(ErrorCode.PERMISSION_DENIED, "the manager service spec belongs to another owner",
                        () -> managers.registeredCluster(new Owner(OWNER), new InstanceId(IID), foreign));
                refused(ErrorCode.PERMISSION_DENIED, "the manager service spec belongs to another owner",
                        () -> managers.openGate(Principal.of(OWNER, "mgr"), new InstanceId(IID)));

                String missing = ManagerRecords.digest("never stored".getBytes(StandardCharsets.UTF_8));
                long unreadable = manager.spec(List.of(missing));
                refused(ErrorCode.FAILED_PRECONDITION, "cannot read registered manager contract artifact " + missing,
                        () -> managers.registeredCluster(new Owner(OWNER), new InstanceId(IID), unreadable));

                long noManager = manager.spec(List.of(manager.cluster("ai.cotal.weather")));
                refused(ErrorCode.FAILED_PRECONDITION, "the manager service spec registers no manager cluster",
                        () -> managers.registeredCluster(new Owner(OWNER), new InstanceId(IID), noManager));
                refused(ErrorCode.FAILED_PRECONDITION, "the manager service spec registers no manager cluster",
                        () -> managers.openGate(Principal.of(OWNER, "mgr"), new InstanceId(IID)));

                // a tampered root: other bytes under the key of the digest the manifest names
                String root = ManagerRecords.digest(ManagerRecords.root("ai.cotal.manager", List.of("evict")));
                manager.artifactAt(root, ManagerRecords.root("ai.cotal.manager", List.of("evict", "everything")));
                long tampered = manager.spec(List.of(manager.artifact(ManagerRecords.manifest(root, List.of()))));
                refused(ErrorCode.FAILED_PRECONDITION, "registered manager contract artifact " + root
                        + " does not match its digest", () -> managers.registeredCluster(new Owner(OWNER), new InstanceId(IID), tampered));
                refused(ErrorCode.FAILED_PRECONDITION, "registered manager contract artifact " + root
                        + " does not match its digest", () -> managers.openGate(Principal.of(OWNER, "mgr"), new InstanceId(IID)));
                assertEquals(Optional.empty(), managers.gate(new InstanceId(IID)), "no refusal wrote a gate");
            }
        }
    }
}
