package ai.cotal.auth.internal.plane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.Grant;
import ai.cotal.auth.Lifecycles;
import ai.cotal.auth.PlaneFixture;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import io.nats.client.KeyValue;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The boot crash-resume of SPEC §14.1: a retirement cut off by a killed broker is finished exactly
 * once by the next plane's open; a corrupt intent store fails the open; a resume that fails freezes
 * its alias until the lifecycle is retired again.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class LifecycleResumeBrokerTest {
    private static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";
    private static final Grant GRANT = Grant.of(List.of("chat"), List.of(), List.of());

    @TempDir
    Path stateDir;

    @Test
    void aRetirementCutOffByAKilledBrokerIsFinishedOnceByTheNextOpen(NatsBrokers brokers) throws Exception {
        PlaneFixture f = new PlaneFixture();
        NatsBroker nats = brokers.start(f::config);
        AuthAuthorityPlane first = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
        ActorRow row = first.ledger().grantActor(Principal.of(OWNER, "laptop"), GRANT);
        LifecycleUid uid = row.lifecycleUid();
        CredentialId credential = first.credentials().mint(Principal.of(OWNER, "laptop"), uid).id();
        String opId = Lifecycles.interactiveRetirementOpId(uid.value());
        ((AuthorityPlaneImpl) first).lifecycleRetirement().hooks(new LifecycleRetirement.Hooks() {
            @Override
            public void afterFence(String op) {
                nats.kill(); // the head is retiring; nothing of the barrier ran
            }
        });
        assertThrows(CotalException.class, () -> first.lifecycles().retireInteractive(Principal.of(OWNER, "laptop"), uid));
        first.fenced().get(10, TimeUnit.SECONDS); // the scanners went with the broker

        nats.restart();
        try (Connection admin = f.admin(nats)) {
            KeyValue auth = admin.keyValue("cotal_auth_alpha");
            assertTrue(text(auth, "lifecycle.head." + OWNER + ".laptop").contains("\"state\":\"retiring\""),
                    "the fence landed before the kill");
            assertTrue(text(auth, "lifecycle.op." + opId).contains("\"state\":\"pending\""), "the intent is owed");
            assertTrue(auth.get("cred." + credential) != null, "the barrier never ran");
        }
        try (AuthAuthorityPlane second = AuthAuthorityPlane.open(f.options(nats, stateDir)
                .livenessOracle(PlaneFixture.operatorSaysGone()).build())) {
            assertEquals(List.of(opId), second.lifecycles().resumedAtOpen().finished(), "the open finished it");
            assertEquals(List.of(), second.lifecycles().resumedAtOpen().frozen());
            Lifecycles.Head head = second.lifecycles().head(Principal.of(OWNER, "laptop")).orElseThrow();
            assertEquals(Lifecycles.State.RETIRED, head.state());
            assertEquals(opId, head.opId().orElseThrow());
            assertTrue(second.credentials().list().isEmpty(), "the lifecycle's credential row is gone");
            try (Connection admin = f.admin(nats)) {
                assertTrue(text(admin.keyValue("cotal_auth_alpha"), "lifecycle.op." + opId)
                        .contains("\"state\":\"done\""));
            }
        }
        try (AuthAuthorityPlane third = AuthAuthorityPlane.open(f.options(nats, stateDir).build())) {
            assertEquals(List.of(), third.lifecycles().resumedAtOpen().finished(), "done: nothing is owed any more");
            assertEquals(Lifecycles.Retirement.Outcome.ALREADY_RETIRED,
                    third.lifecycles().retireInteractive(Principal.of(OWNER, "laptop"), uid).outcome());
        }
    }

    @Test
    void aFailedResumeFreezesItsAliasAndACorruptIntentFailsTheOpen(NatsBrokers brokers) throws Exception {
        PlaneFixture f = new PlaneFixture();
        NatsBroker nats = brokers.start(f::config);
        String uid;
        String bystander;
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build())) {
            ActorRow row = plane.ledger().grantActor(Principal.of(OWNER, "laptop"), GRANT);
            uid = row.lifecycleUid().value();
            plane.credentials().mint(Principal.of(OWNER, "laptop"), new LifecycleUid(uid));
            ActorRow other = plane.ledger().grantActor(Principal.of(OWNER, "desk"), GRANT);
            bystander = other.lifecycleUid().value();
            plane.credentials().mint(Principal.of(OWNER, "desk"), new LifecycleUid(bystander));
        }
        String opId = Lifecycles.interactiveRetirementOpId(uid);
        String headKey = "lifecycle.head." + OWNER + ".laptop";
        String validHead;
        try (Connection admin = f.admin(nats)) { // an owed retirement whose head no longer reads
            KeyValue auth = admin.keyValue("cotal_auth_alpha");
            validHead = text(auth, headKey);
            auth.put("lifecycle.op." + opId, ("{\"v\":1,\"opId\":\"" + opId + "\",\"kind\":\"interactive-retirement\","
                    + "\"owner\":\"" + OWNER + "\",\"actor\":\"laptop\",\"uid\":\"" + uid + "\",\"state\":\"pending\","
                    + "\"requestedAt\":\"2026-11-30T00:00:00Z\"}").getBytes(StandardCharsets.UTF_8));
            auth.put(headKey, "{\"v\":2}".getBytes(StandardCharsets.UTF_8));
        }
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build())) {
            Lifecycles.Resume resume = plane.lifecycles().resumedAtOpen();
            assertEquals(List.of(), resume.finished());
            assertEquals(List.of(OWNER + ".laptop"), resume.frozen(), "the failed resume froze its alias");
            CotalException frozen = assertThrows(CotalException.class,
                    () -> plane.credentials().mint(Principal.of(OWNER, "laptop"), new LifecycleUid(uid)));
            assertEquals(ErrorCode.UNAVAILABLE, frozen.code());
            assertTrue(frozen.getMessage().contains("frozen"), frozen.getMessage());
            plane.credentials().mint(Principal.of(OWNER, "desk"), new LifecycleUid(bystander)); // the other aliases serve

            try (Connection admin = f.admin(nats)) { // the operator repairs the head; a retire finishes and thaws
                admin.keyValue("cotal_auth_alpha").put(headKey, validHead.getBytes(StandardCharsets.UTF_8));
            }
            Lifecycles.Retirement retired = plane.lifecycles().retireInteractive(Principal.of(OWNER, "laptop"), new LifecycleUid(uid));
            assertEquals(Lifecycles.Retirement.Outcome.RETIRED, retired.outcome());
            assertEquals(1, retired.credentialsRevoked());
            CotalException after = assertThrows(CotalException.class, () -> plane.credentials().mint(Principal.of(OWNER, "laptop"), new LifecycleUid(uid)));
            assertEquals(ErrorCode.FAILED_PRECONDITION, after.code(), "no longer frozen: retired");
        }
        try (Connection admin = f.admin(nats)) {
            admin.keyValue("cotal_auth_alpha").put("lifecycle.op." + "a".repeat(26), "not json".getBytes(
                    StandardCharsets.UTF_8));
        }
        CotalException corrupt = assertThrows(CotalException.class,
                () -> AuthAuthorityPlane.open(f.options(nats, stateDir).build()));
        assertEquals(ErrorCode.DATA_LOSS, corrupt.code());
        assertTrue(corrupt.getMessage().contains("lifecycle.op." + "a".repeat(26)), corrupt.getMessage());
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build())) {
            throw new AssertionError("a corrupt intent store must keep failing the open: " + plane.claim());
        } catch (CotalException again) {
            assertEquals(ErrorCode.DATA_LOSS, again.code(), "the failed open released its claim: the next one reads again");
        }
    }

    private static String text(KeyValue bucket, String key) throws Exception {
        return new String(bucket.get(key).getValue(), StandardCharsets.UTF_8);
    }
}
