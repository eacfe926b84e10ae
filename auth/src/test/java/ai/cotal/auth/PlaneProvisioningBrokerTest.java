package ai.cotal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.internal.plane.BearerIssuer;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.workspace.SecretKeys;
import io.nats.client.Connection;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plane's open checks what {@link SpaceProvisioning} wrote (SPEC §13.12, §13.22): a store that
 * lacks any secret a plane needs refuses the open naming every missing key, before a connection,
 * and the plane creates none of them.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class PlaneProvisioningBrokerTest {
    @TempDir
    Path stateDir;

    @Test
    void aPlaneOnAStoreWithoutItsKeysRefusesNamingThemAndCreatesNone(NatsBrokers brokers) throws Exception {
        PlaneFixture f = new PlaneFixture();
        NatsBroker nats = brokers.start(f::config);
        byte[] issuer = f.store.get(SecretKeys.issuerKeysKey("alpha")).orElseThrow();
        byte[] owner = f.store.get(SecretKeys.ownerSecretKey("alpha")).orElseThrow();
        f.store.delete(SecretKeys.issuerKeysKey("alpha"));
        f.store.delete(SecretKeys.ownerSecretKey("alpha"));
        f.store.delete(SecretKeys.connectionEvictorCredsKey("alpha"));
        CotalException refused = assertThrows(CotalException.class, () -> AuthAuthorityPlane.open(f.options(nats,
                stateDir).build()).close());
        assertEquals(ErrorCode.FAILED_PRECONDITION, refused.code());
        assertEquals("the authority plane of space \"alpha\" is not provisioned: the secret store lacks "
                + SecretKeys.issuerKeysKey("alpha") + ", " + SecretKeys.ownerSecretKey("alpha") + ", "
                + SecretKeys.connectionEvictorCredsKey("alpha") + " (SpaceProvisioning writes them)", refused.getMessage());
        assertEquals(List.of(SecretKeys.issuerKeysKey("alpha"), SecretKeys.ownerSecretKey("alpha"),
                SecretKeys.connectionEvictorCredsKey("alpha")), SpaceProvisioning.missing(f.store, "alpha",
                SpaceProvisioning.Role.PLANE), "the open created no key");
        try (Connection admin = f.admin(nats)) {
            assertTrue(admin.jetStreamManagement().getStreamNames().isEmpty(), "refused before any connection");
        }

        f.store.put(SecretKeys.issuerKeysKey("alpha"), issuer);
        f.store.put(SecretKeys.ownerSecretKey("alpha"), owner);
        assertEquals(List.of(SecretKeys.connectionEvictorCredsKey("alpha")),
                SpaceProvisioning.forSpace(new ai.cotal.core.trust.SpaceAuth(f.broker, f.space), f.callout).complete(f.store));
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build())) {
            assertTrue(plane.bearers().jwks().contains(BearerIssuer.load(f.store, "alpha", f.clock).keyId()),
                    "the plane signs with the provisioned key");
        }
    }
}
