package ai.cotal.core.claims;

import static ai.cotal.core.claims.ClaimsFixture.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.keys.NKeyPair;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Every way a push is refused, each against the real broker. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class AccountClaimsRefusalBrokerTest {
    private final ClaimsFixture f = new ClaimsFixture();
    private final String ghost = NKeyPair.create(KeyType.SERVER).publicKey();

    private static CotalException refused(ErrorCode code, Runnable push) {
        CotalException e = assertThrows(CotalException.class, push::run);
        assertEquals(code, e.code(), e.getMessage());
        return e;
    }

    @Test
    void anAnswerFromAnUnexpectedServerIsRefusedNamingIt(NatsBrokers brokers) {
        NatsBroker nats = brokers.start(b -> f.config(b, 100));
        try (Connection system = f.system(nats)) {
            CotalException e = refused(ErrorCode.FAILED_PRECONDITION, () -> new AccountClaims(system, f.broker, f.clock)
                    .push(f.beta.jwt(), Set.of(ghost), Duration.ofMillis(500)));
            assertTrue(e.getMessage().contains(nats.serverId()), e.getMessage());
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aMissingAnswerIsRefusedNamingTheServer(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> f.config(b, 100));
        try (Connection system = f.system(nats)) {
            CotalException e = refused(ErrorCode.DEADLINE_EXCEEDED, () -> new AccountClaims(system, f.broker, f.clock)
                    .push(f.beta.jwt(), Set.of(nats.serverId(), ghost), Duration.ofMillis(500)));
            assertTrue(e.getMessage().contains(ghost), e.getMessage());
        }
    }

    @Test
    void anErrorAnswerIsRefusedWithTheServersReason(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> f.config(b, 2)); // alpha + SYS fill the store
        try (Connection system = f.system(nats)) {
            CotalException e = refused(ErrorCode.FAILED_PRECONDITION, () -> new AccountClaims(system, f.broker, f.clock)
                    .push(f.beta.jwt(), Set.of(nats.serverId()), WAIT));
            assertTrue(e.getMessage().contains(nats.serverId()) && e.getMessage().contains("full"), e.getMessage());
        }
    }

    @Test
    void aClaimOfAForeignOperatorIsRefusedBeforeAnythingIsSent(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> f.config(b, 100));
        BrokerAuth foreign = BrokerAuth.create("foreign", f.clock);
        SpaceAccountAuth stranger = SpaceAccountAuth.create(foreign, "stranger", f.clock);
        try (Connection system = f.system(nats)) {
            long sent = system.getStatistics().getOutMsgs();
            CotalException e = refused(ErrorCode.BAD_REQUEST, () -> new AccountClaims(system, f.broker, f.clock)
                    .push(stranger.jwt(), Set.of(nats.serverId()), WAIT));
            assertTrue(e.getMessage().startsWith("accountJwt"), e.getMessage());
            assertEquals(sent, system.getStatistics().getOutMsgs(), "nothing was sent");
            assertFalse(new AccountClaims(system, f.broker, f.clock).list(WAIT).contains(stranger.accountPublicKey()));
        }
    }

    @Test
    void anOlderClaimThanTheBrokerHoldsIsRefused(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> f.config(b, 100));
        try (Connection system = f.system(nats)) {
            AccountClaims claims = new AccountClaims(system, f.broker, f.clock);
            String newer = AccountClaims.retire(f.broker, f.alpha.jwt(), f.clock.instant().getEpochSecond() + 5);
            claims.push(newer, Set.of(nats.serverId()), WAIT);
            CotalException e = refused(ErrorCode.CONFLICT, () -> claims.push(f.alpha.jwt(), Set.of(nats.serverId()), WAIT));
            assertTrue(e.getMessage().contains("older"), e.getMessage());
            assertEquals(newer, claims.lookup(f.alpha.accountPublicKey(), WAIT).orElseThrow());
        }
    }
}
