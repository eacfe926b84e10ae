package ai.cotal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** authorizeConnect through an open plane: ledger row plus live credential row. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class PlaneAuthorizeBrokerTest {
    private final PlaneFixture f = new PlaneFixture();

    @TempDir
    Path stateDir;

    @Test
    void connectsNeedAGrantAndALiveCredentialRow(NatsBrokers brokers) {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build())) {
            ActorRow row = plane.ledger().grantActor(Principal.of("u_ownerownerownerownerowners", "laptop"),
                    Grant.of(List.of("chat"), List.of("general"), List.of()));
            CredentialId credential = plane.credentials().mint(Principal.of("u_ownerownerownerownerowners", "laptop"), row.lifecycleUid()).id();
            ConnectAttempt attempt = new ConnectAttempt(Principal.of("u_ownerownerownerownerowners", "laptop"), List.of("chat"), row.lifecycleUid(), credential);
            assertEquals(row.lifecycleUid(), plane.credentials().authorize(attempt).lifecycleUid());
            assertEquals(List.of(credential), plane.credentials().list());
            assertEquals(row.lifecycleUid(), plane.ledger().find(Principal.of("u_ownerownerownerownerowners", "laptop"))
                    .orElseThrow().lifecycleUid(), "the ledger row stands at the grant's uid");

            plane.credentials().revoke(credential);
            CotalException revoked = assertThrows(CotalException.class, () -> plane.credentials().authorize(attempt));
            assertEquals(ErrorCode.PERMISSION_DENIED, revoked.code());
            assertEquals(List.of(), plane.credentials().list());

            CredentialId fresh = plane.credentials().mint(Principal.of("u_ownerownerownerownerowners", "laptop"), row.lifecycleUid()).id();
            plane.credentials().authorize(new ConnectAttempt(Principal.of("u_ownerownerownerownerowners", "laptop"), List.of("chat"), row.lifecycleUid(), fresh));
            plane.ledger().revoke(Principal.of("u_ownerownerownerownerowners", "laptop"));
            assertThrows(CotalException.class, () -> plane.credentials().authorize(new ConnectAttempt(Principal.of("u_ownerownerownerownerowners", "laptop"),
                    List.of("chat"), row.lifecycleUid(), fresh)));
            assertThrows(CotalException.class, () -> plane.credentials().mint(Principal.of("u_ownerownerownerownerowners", "laptop"), row.lifecycleUid()));
            assertTrue(plane.deriveOwner("https://idp.example", "user").value().startsWith("u_"));
        }
    }

    /**
     * A mint at a lifecycle this plane saw active writes its row only while that head stands: once
     * a retirement moved the head, the next mint is refused and writes no credential row (§14.1).
     */
    @Test
    void aMintAfterTheHeadMovedIsRefusedAndWritesNoRow(NatsBrokers brokers) {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build())) {
            ActorRow row = plane.ledger().grantActor(Principal.of("u_abcdefghijklmnopqrstuvwxyz", "laptop"), Grant.of(List.of(), List.of(),
                    List.of()));
            plane.credentials().mint(Principal.of("u_abcdefghijklmnopqrstuvwxyz", "laptop"), row.lifecycleUid()); // activates: the plane saw it active
            plane.credentials().mint(Principal.of("u_abcdefghijklmnopqrstuvwxyz", "laptop"), row.lifecycleUid()); // written under that head
            assertEquals(2, plane.credentials().list().size());
            assertEquals(2, plane.lifecycles().retireInteractive(Principal.of("u_abcdefghijklmnopqrstuvwxyz", "laptop"), new LifecycleUid(row.lifecycleUid().value()))
                    .credentialsRevoked());

            CotalException refused = assertThrows(CotalException.class,
                    () -> plane.credentials().mint(Principal.of("u_abcdefghijklmnopqrstuvwxyz", "laptop"), row.lifecycleUid()));
            assertEquals(ErrorCode.FAILED_PRECONDITION, refused.code(), refused.getMessage());
            assertEquals(List.of(), plane.credentials().list(), "no row at the retired lifecycle");
        }
    }

    /** A purge marker where the lifecycle head belongs is corruption at connect (SPEC §14.1), never "no head". */
    @Test
    void aPurgedLifecycleHeadRefusesTheConnectAsDataLoss(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
             io.nats.client.Connection admin = f.admin(nats)) {
            ActorRow row = plane.ledger().grantActor(Principal.of("u_abcdefghijklmnopqrstuvwxyz", "laptop"), Grant.of(List.of(), List.of(),
                    List.of()));
            CredentialId credential = plane.credentials().mint(Principal.of("u_abcdefghijklmnopqrstuvwxyz", "laptop"), row.lifecycleUid()).id(); // writes the head
            ConnectAttempt attempt = new ConnectAttempt(Principal.of("u_abcdefghijklmnopqrstuvwxyz", "laptop"), List.of(), row.lifecycleUid(), credential);
            plane.credentials().authorize(attempt);

            admin.keyValue("cotal_auth_alpha").purge("lifecycle.head.u_abcdefghijklmnopqrstuvwxyz.laptop");
            CotalException corrupt = assertThrows(CotalException.class, () -> plane.credentials().authorize(attempt));
            assertEquals(ErrorCode.DATA_LOSS, corrupt.code(), corrupt.getMessage());
            assertTrue(corrupt.getMessage().contains("lifecycle.head.u_abcdefghijklmnopqrstuvwxyz.laptop"), corrupt.getMessage());
        }
    }
}
