package ai.cotal.auth.internal.callout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.InboxNonce;
import ai.cotal.auth.LedgerStore;
import ai.cotal.core.id.Principal;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A plane opened with {@code ledger(LedgerStore.jetStream())} and its own callout responder
 * (SPEC §13.23): a granted actor's connect is admitted through the real broker callout from the
 * store's row, and refused at its next connect after the revoke; the state directory holds no
 * ledger file.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class StoreLedgerCalloutBrokerTest {
    private final CalloutFixture f = new CalloutFixture();

    @TempDir
    Path stateDir;

    @Test
    void aStoreLedgerPlaneAdmitsAGrantedActorAndRefusesItAfterTheRevoke(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        Principal laptop = Principal.of(CalloutFixture.OWNER, "laptop");
        String nonce = InboxNonce.forPrincipal(laptop);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.plane.options(nats, stateDir).callout(f.callout)
                .ledger(LedgerStore.jetStream()).build());
             Connection admin = f.plane.admin(nats)) {
            assertEquals("store", plane.health().ledger());
            String bearer = f.bearer(plane, "laptop", List.of("general"), List.of("general"), Duration.ofMinutes(5));
            assertTrue(admin.keyValue("cotal_auth_alpha").get("ledger." + laptop) != null, "the grant is a store row");
            assertFalse(Files.exists(stateDir.resolve("actors")), "no row file");
            try (CalloutFixture.Client member = f.connect(nats, bearer, nonce)) {
                assertEquals(Connection.Status.CONNECTED, member.connection().getStatus(), "admitted from the store's row");
            }
            plane.ledger().revoke(laptop);
            Exception refused = f.refused(nats, bearer, nonce);
            assertTrue(refused.getMessage() == null || !refused.getMessage().contains("ledger."), "no key path");
        }
    }
}
