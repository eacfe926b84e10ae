package ai.cotal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.workspace.SecretKeys;
import io.nats.client.Connection;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The space's membership-observer credential is checked at open (SPEC §13.12): one that is absent,
 * observes another account, or does not read, refuses the open naming its secret store key before
 * the plane connects or writes anything.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class ObserverCredentialBrokerTest {
    @TempDir
    Path stateDir;

    private static void assertRefusedBeforeAnything(PlaneFixture f, NatsBroker nats, Path stateDir, String why)
            throws Exception {
        CotalException e = assertThrows(CotalException.class, () -> AuthAuthorityPlane.open(f.options(nats, stateDir)
                .build()).close());
        assertEquals(ErrorCode.FAILED_PRECONDITION, e.code(), e.getMessage());
        assertTrue(e.getMessage().contains(SecretKeys.membershipObserverCredsKey("alpha")), "names the key: " + e.getMessage());
        assertTrue(e.getMessage().contains(why), e.getMessage());
        // a seed's shape, not "SU": the message names public keys, whose base32 may hold any pair
        assertFalse(java.util.regex.Pattern.compile("S[OAUNCX][A-Z2-7]{56}").matcher(e.getMessage()).find(),
                "no seed in the message: " + e.getMessage());
        try (Connection admin = f.admin(nats)) {
            assertTrue(admin.jetStreamManagement().getStreamNames().isEmpty(), "no authority store was created");
        }
    }

    @Test
    void anObserverOfAnotherAccountRefusesTheOpenNamingItsKey(NatsBrokers brokers) throws Exception {
        PlaneFixture f = new PlaneFixture();
        NatsBroker nats = brokers.start(f::config);
        SpaceAccountAuth beta = SpaceAccountAuth.create(f.broker, "beta", f.clock);
        f.store.putText(SecretKeys.membershipObserverCredsKey("alpha"), Creds.mintSystem(f.broker, Identity.create(),
                CredentialProfile.MEMBERSHIP_OBSERVER, beta.accountPublicKey(), MintOptions.defaults()).text());
        assertRefusedBeforeAnything(f, nats, stateDir, "observes another account");
    }

    @Test
    void anUnreadableObserverCredentialRefusesTheOpenNamingItsKey(NatsBrokers brokers) throws Exception {
        PlaneFixture f = new PlaneFixture();
        NatsBroker nats = brokers.start(f::config);
        f.store.putText(SecretKeys.membershipObserverCredsKey("alpha"), "not a credential");
        assertRefusedBeforeAnything(f, nats, stateDir, "is not a readable user credential");
    }

    @Test
    void anEvictorCredentialInTheObserversPlaceRefusesTheOpen(NatsBrokers brokers) throws Exception {
        PlaneFixture f = new PlaneFixture();
        NatsBroker nats = brokers.start(f::config);
        f.store.putText(SecretKeys.membershipObserverCredsKey("alpha"), f.evictor.text());
        assertRefusedBeforeAnything(f, nats, stateDir, "observes another account");
    }

    @Test
    void theSpacesOwnObserverOpensAndNoneRefusesTheOpenNamingItsKey(NatsBrokers brokers) throws Exception {
        PlaneFixture f = new PlaneFixture(); // its store holds the observer of the space's data account
        NatsBroker nats = brokers.start(f::config);
        String observer = f.store.getText(SecretKeys.membershipObserverCredsKey("alpha")).orElseThrow();
        f.store.delete(SecretKeys.membershipObserverCredsKey("alpha"));
        assertRefusedBeforeAnything(f, nats, stateDir, "is not provisioned");
        f.store.putText(SecretKeys.membershipObserverCredsKey("alpha"), observer);
        AuthAuthorityPlane.open(f.options(nats, stateDir).build()).close();
    }
}
