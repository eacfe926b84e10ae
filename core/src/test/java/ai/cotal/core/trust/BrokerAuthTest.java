package ai.cotal.core.trust;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.jwt.AccountClaim;
import ai.cotal.core.jwt.NatsJwt;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class BrokerAuthTest {
    private final Clock clock = Clock.fixed(Instant.parse("2026-11-29T10:00:00Z"), ZoneOffset.UTC);

    @Test
    void systemAccountHasJetStreamOffAndDataAccountUnlimited() {
        BrokerAuth broker = BrokerAuth.create("My Broker!", clock);
        assertEquals("cotal-My_Broker_", broker.operatorName());
        AccountClaim sys = NatsJwt.decode(broker.systemJwt(), AccountClaim.class).nats();
        assertEquals(0L, sys.limits().memStorage());
        assertEquals(0L, sys.limits().diskStorage());
        SpaceAccountAuth space = SpaceAccountAuth.create(broker, "alpha", clock);
        AccountClaim data = space.requireSignedBy(broker, clock).nats();
        assertEquals(-1L, data.limits().diskStorage());
        assertEquals(java.util.List.of(space.signing().publicKey()), data.signingKeys());
        assertEquals("alpha", NatsJwt.decode(space.jwt()).name());
    }

    @Test
    void rotateSystemAccountBumpsTheGenerationAndIsNeverOlder() {
        BrokerAuth broker = BrokerAuth.create("b", clock);
        BrokerAuth rotated = broker.rotateSystemAccount(clock);
        assertEquals(1, rotated.generation());
        assertEquals(broker.operatorPublicKey(), rotated.operatorPublicKey());
        assertNotEquals(broker.systemAccount(), rotated.systemAccount());
        assertEquals(rotated.systemAccount(), rotated.operatorClaims(clock).nats().systemAccount());
        assertTrue(NatsJwt.decode(rotated.systemJwt()).iat() > NatsJwt.decode(broker.systemJwt()).iat());
    }

    @Test
    void thePersistedFormHasNoSystemSeed() {
        BrokerAuth stored = BrokerAuth.create("b", clock).withoutSystemSigner();
        assertTrue(stored.systemSigner().isEmpty());
        CotalException e = assertThrows(CotalException.class, stored::requireSystemSigner);
        assertEquals(ErrorCode.FAILED_PRECONDITION, e.code());
    }

    @Test
    void rotatingTheSigningKeyListsOnlyTheNewKeyWithANewerClaim() {
        BrokerAuth broker = BrokerAuth.create("b", clock);
        SpaceAccountAuth space = SpaceAccountAuth.create(broker, "alpha", clock);
        SpaceAccountAuth rotated = space.rotateDataAccountSigningKey(broker, clock);
        AccountClaim claim = rotated.requireSignedBy(broker, clock).nats();
        assertEquals(java.util.List.of(rotated.signing().publicKey()), claim.signingKeys());
        assertFalse(claim.hasSigningKey(space.signing().publicKey()));
        assertTrue(NatsJwt.decode(rotated.jwt()).iat() > NatsJwt.decode(space.jwt()).iat());
    }

    @Test
    void composeRefusesAnAccountOfAnotherBroker() {
        BrokerAuth one = BrokerAuth.create("one", clock);
        BrokerAuth two = BrokerAuth.create("two", clock);
        SpaceAccountAuth space = SpaceAccountAuth.create(two, "alpha", clock);
        assertThrows(CotalException.class, () -> SpaceAuth.compose(one, space, clock));
        SpaceSigner signer = SpaceAuth.compose(two, space, clock).strip();
        assertEquals(space.signing().publicKey(), signer.signing().publicKey());
        assertFalse(signer.toString().contains(space.signing().seed()));
    }
}
