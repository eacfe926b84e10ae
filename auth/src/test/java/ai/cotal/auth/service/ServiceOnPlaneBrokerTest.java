package ai.cotal.auth.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.PlaneClaimRefusal;
import ai.cotal.auth.PlaneHealth;
import ai.cotal.auth.SpaceProvisioning;
import ai.cotal.auth.exchange.TokenExchange;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who closes the plane (SPEC §13.18): a service started on a plane the caller holds leaves it open
 * and its claim held; the one {@link AuthService#open} opened closes with it. A public face needs
 * a plane that answers the callout.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class ServiceOnPlaneBrokerTest {
    private final Clock clock = Clock.systemUTC();
    private final SpaceProvisioning space = SpaceProvisioning.create("alpha", clock);
    private final InMemorySecretStore store = new InMemorySecretStore();

    @TempDir
    Path stateDir;

    private NatsBroker broker(NatsBrokers brokers) {
        space.write(store);
        return brokers.start(b -> space.serverConfig(ServerConfigOptions.builder().transport(Transport.plaintext())
                .storeDir(b.storeDir()).build()));
    }

    private AuthPlaneOptions.Builder plane(NatsBroker nats) {
        return StockPlane.options(nats.url(), "alpha", stateDir, store);
    }

    private static PlaneClaimRefusal.Reason refusal(Runnable open) {
        return assertThrows(PlaneClaimRefusal.class, open::run).reason();
    }

    @Test
    void aServiceOnAHeldPlaneLeavesItOpenWithItsClaimAndTheSamePlaneTakesASecondService(NatsBrokers brokers) {
        NatsBroker nats = broker(brokers);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(plane(nats).build())) {
            AuthAuthorityPlane.ClaimInfo claim = plane.claim();
            AuthService first = AuthService.start(plane, AuthServiceOptions.builder().build());
            assertTrue(Files.exists(stateDir.resolve(TokenExchange.DISCOVERY_FILE)), "ready");
            first.close();
            assertEquals(AuthService.State.CLOSED, first.state());
            assertFalse(Files.exists(stateDir.resolve(TokenExchange.DISCOVERY_FILE)), "the closed service withdrew its file");
            assertEquals(PlaneHealth.State.OPEN, plane.health().state(), "the service never closes a plane it was handed");
            assertEquals(claim, plane.claim());
            assertEquals(PlaneClaimRefusal.Reason.LIVE_PEER, refusal(() -> AuthAuthorityPlane.open(plane(nats).build())),
                    "the claim is still held on the broker");

            try (AuthService second = AuthService.start(plane, AuthServiceOptions.builder().build())) {
                assertEquals(AuthService.State.READY, second.state());
                assertTrue(Files.exists(stateDir.resolve(TokenExchange.DISCOVERY_FILE)), "the second service is ready");
                assertEquals(claim, second.plane().claim(), "on the same plane");
            }
            assertEquals(PlaneHealth.State.OPEN, plane.health().state());
            plane.close();
            CotalException closed = assertThrows(CotalException.class,
                    () -> AuthService.start(plane, AuthServiceOptions.builder().build()));
            assertEquals(ErrorCode.UNAVAILABLE, closed.code(), "a closed plane takes no service: " + closed.getMessage());
            assertFalse(Files.exists(stateDir.resolve(TokenExchange.DISCOVERY_FILE)), "no face was bound");
        }
    }

    @Test
    void theServiceOpenOpenedClosesItsPlaneAndReleasesTheClaim(NatsBrokers brokers) {
        NatsBroker nats = broker(brokers);
        AuthAuthorityPlane owned;
        try (AuthService service = AuthService.open(plane(nats).build(), AuthServiceOptions.builder().build())) {
            owned = service.plane();
            assertEquals(1, owned.claim().generation());
            assertEquals(PlaneClaimRefusal.Reason.LIVE_PEER, refusal(() -> AuthAuthorityPlane.open(plane(nats).build())));
        }
        assertEquals(PlaneHealth.State.CLOSED, owned.health().state(), "open(...)'s plane closes with its service");
        try (AuthAuthorityPlane next = AuthAuthorityPlane.open(plane(nats).build())) {
            assertEquals(2, next.claim().generation(), "the claim was released");
        }
    }

    @Test
    void aPublicFaceOnAPlaneWithoutACalloutIsRefusedNamingPublicAddress(NatsBrokers brokers) {
        NatsBroker nats = broker(brokers);
        ServiceMaterial.Loaded material = ServiceMaterial.forService(store, "alpha", null);
        AuthPlaneOptions noCallout = AuthPlaneOptions.builder().server(nats.url()).space("alpha").stateDir(stateDir)
                .secretStore(store).signer(material.signer()).build();
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(noCallout)) {
            assertTrue(plane.health().callout().isEmpty(), "this plane answers no callout");
            AuthServiceOptions publicFace = AuthServiceOptions.builder()
                    .publicAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build();
            CotalException refused = assertThrows(CotalException.class, () -> AuthService.start(plane, publicFace));
            assertEquals(ErrorCode.FAILED_PRECONDITION, refused.code());
            assertTrue(refused.getMessage().startsWith("publicAddress"), refused.getMessage());
            assertFalse(Files.exists(stateDir.resolve(TokenExchange.DISCOVERY_FILE)), "no face was bound");
            assertEquals(PlaneHealth.State.OPEN, plane.health().state(), "the refusal leaves the plane as it was");
            try (AuthService loopback = AuthService.start(plane, AuthServiceOptions.builder().build())) {
                assertTrue(loopback.publicUrl().isEmpty(), "a loopback-only service needs no callout");
            }
        }
    }
}
