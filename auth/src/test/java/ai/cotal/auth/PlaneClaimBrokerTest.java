package ai.cotal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The plane claim, the fatal latch and close(), on the real broker. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class PlaneClaimBrokerTest {
    private final PlaneFixture f = new PlaneFixture();

    @TempDir
    Path stateDir;

    private static PlaneClaimRefusal refused(PlaneClaimRefusal.Reason reason, Runnable open) {
        PlaneClaimRefusal e = assertThrows(PlaneClaimRefusal.class, open::run);
        assertEquals(reason, e.reason(), e.getMessage());
        return e;
    }

    private String planeRow(NatsBroker nats) throws Exception {
        try (Connection admin = f.admin(nats)) {
            return new String(admin.keyValue("cotal_auth_alpha").get("plane").getValue(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void aSecondPlaneRefusesLivePeerUntilTheFirstCloses(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        AuthAuthorityPlane first = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
        assertEquals(1, first.claim().generation());
        PlaneClaimRefusal e = refused(PlaneClaimRefusal.Reason.LIVE_PEER,
                () -> AuthAuthorityPlane.open(f.options(nats, stateDir).build()));
        assertEquals(ErrorCode.FAILED_PRECONDITION, e.code());
        first.close();
        assertTrue(planeRow(nats).contains("\"state\":\"released\""));
        try (AuthAuthorityPlane second = AuthAuthorityPlane.open(f.options(nats, stateDir).build())) {
            assertEquals(2, second.claim().generation());
        }
    }

    @Test
    void aKickedScannerFencesThePlaneAndAFreshPlaneReclaimsOnlyWithProof(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
        ScannerKick.kick(nats, f.space.accountPublicKey(), ScannerKick.ledgerScanner("alpha"), Creds.parse(f.store
                .getText(ai.cotal.workspace.SecretKeys.membershipObserverCredsKey("alpha")).orElseThrow()), f.evictor);
        String copy = plane.fenced().get(10, TimeUnit.SECONDS);
        assertTrue(copy.contains("alpha"), copy);
        CotalException unavailable = assertThrows(CotalException.class, () -> plane.bearers().jwks());
        assertEquals(ErrorCode.UNAVAILABLE, unavailable.code());
        assertTrue(unavailable.getMessage().contains("retry shortly"), unavailable.getMessage());
        assertThrows(CotalException.class, () -> plane.credentials().authorize(new ConnectAttempt(Principal.of("o", "a"), List.of(), new LifecycleUid("x"), new CredentialId("y"))));

        refused(PlaneClaimRefusal.Reason.UNKNOWN, () -> AuthAuthorityPlane.open(f.options(nats, stateDir)
                .livenessOracle(LivenessOracle.Answer::unknown).build()));
        try (AuthAuthorityPlane fresh = AuthAuthorityPlane.open(f.options(nats, stateDir).build())) {
            assertEquals(2, fresh.claim().generation(), "reclaimed once the oracle proved both tuples gone");
        }
        assertThrows(PlaneClaimRefusal.class, plane::close, "the fenced plane lost its claim");
    }

    @Test
    void closeWhileTheBrokerIsStoppedIsRetryable(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
        nats.stop();
        refused(PlaneClaimRefusal.Reason.RELEASE_UNREACHABLE, plane::close);
        nats.restart();
        assertTrue(planeRow(nats).contains("\"state\":\"held\""), "the claim stays held");
        plane.close();
        assertTrue(planeRow(nats).contains("\"state\":\"released\""));
        plane.close(); // idempotent once closed
    }

    @Test
    void aCorruptPlaneRowRefusesToOpen(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        AuthAuthorityPlane.open(f.options(nats, stateDir).build()).close();
        try (Connection admin = f.admin(nats)) {
            admin.keyValue("cotal_auth_alpha").put("plane", "{\"v\":1,\"surprise\":true}".getBytes(StandardCharsets.UTF_8));
        }
        PlaneClaimRefusal e = refused(PlaneClaimRefusal.Reason.CORRUPT, () -> AuthAuthorityPlane.open(f.options(nats, stateDir).build()));
        assertFalse(e.getMessage().contains("stop"), "the copy never tells the operator to stop another process");
    }
}
