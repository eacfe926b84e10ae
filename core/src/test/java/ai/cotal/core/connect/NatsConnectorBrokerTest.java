package ai.cotal.core.connect;

import static ai.cotal.core.BrokerClients.config;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.BrokerClients;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.internal.connect.SelfSignedCredential;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The one connection door on a real nats-server: what it applies and how it reports a failed open. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class NatsConnectorBrokerTest {
    private final Clock clock = Clock.systemUTC();
    private final BrokerAuth broker = BrokerAuth.create("test broker", clock);
    private final SpaceAccountAuth alpha = SpaceAccountAuth.create(broker, "alpha", clock);
    /** A space the broker was never told about: its users are refused. */
    private final SpaceAccountAuth stranger = SpaceAccountAuth.create(BrokerAuth.create("other", clock), "alpha", clock);

    private NatsBroker start(NatsBrokers brokers) {
        return brokers.start(b -> config(b, broker, List.of(alpha), List.of()));
    }

    private static NatsConnector.Builder door(NatsBroker nats) {
        return NatsConnector.builder().server(nats.url()).label("door-test").timeout(Duration.ofMillis(1500));
    }

    private static SelfSignedCredential selfSigned(Creds creds) {
        return new SelfSignedCredential(creds.identity().key(), creds::jwt);
    }

    @Test
    void aSelfSignedCredentialConnectsUnderItsKeysInboxAndTheLabel(NatsBrokers brokers) throws Exception {
        NatsBroker nats = start(brokers);
        Creds user = BrokerClients.unrestricted(alpha);
        try (Connection connection = door(nats).selfSigned(selfSigned(user)).build().connect()) {
            assertEquals(Connection.Status.CONNECTED, connection.getStatus());
            assertTrue(connection.createInbox().startsWith("_INBOX_" + user.userPublicKey() + "."), connection.createInbox());
            assertEquals("door-test", connection.getOptions().getConnectionName());
        }
    }

    @Test
    void aRefusedCredentialIsUnauthenticatedAndNamesNoSecret(NatsBrokers brokers) {
        NatsBroker nats = start(brokers);
        Creds refused = BrokerClients.unrestricted(stranger);
        CotalException e = assertThrows(CotalException.class, () -> door(nats).creds(refused).build().connect());
        assertEquals(ErrorCode.UNAUTHENTICATED, e.code());
        assertTrue(e.getMessage().startsWith("door-test: the broker refused the credential"), e.getMessage());
        assertFalse(e.getMessage().contains(refused.jwt()), "the message carries no JWT");
        assertFalse(e.getMessage().contains(refused.identity().key().seed()), "the message carries no seed");
    }

    @Test
    void aRefusedSelfSignedCredentialIsUnavailable(NatsBrokers brokers) {
        NatsBroker nats = start(brokers);
        CotalException e = assertThrows(CotalException.class,
                () -> door(nats).selfSigned(selfSigned(BrokerClients.unrestricted(stranger))).build().connect());
        assertEquals(ErrorCode.UNAVAILABLE, e.code(), "the broker does not trust the space's key: not a caller's fault");
        assertTrue(e.getMessage().startsWith("door-test: the broker refused the credential"), e.getMessage());
    }

    @Test
    void aBrokerThatIsGoneIsUnavailable(NatsBrokers brokers) {
        NatsBroker nats = start(brokers);
        nats.kill();
        CotalException e = assertThrows(CotalException.class,
                () -> door(nats).creds(BrokerClients.unrestricted(alpha)).build().connect());
        assertEquals(ErrorCode.UNAVAILABLE, e.code());
        assertTrue(e.getMessage().startsWith("door-test: cannot connect to [" + nats.url() + "]"), e.getMessage());
    }

    @Test
    void aConnectionHasExactlyOneCredential() {
        Creds user = BrokerClients.unrestricted(alpha);
        NatsConnector.Builder none = NatsConnector.builder().server("nats://127.0.0.1:4222");
        assertEquals("creds: a connection needs a credential", assertThrows(CotalException.class, none::build).getMessage());
        NatsConnector.Builder both = NatsConnector.builder().server("nats://127.0.0.1:4222").creds(user)
                .selfSigned(selfSigned(user));
        CotalException twice = assertThrows(CotalException.class, both::build);
        assertEquals(ErrorCode.BAD_REQUEST, twice.code());
        assertTrue(twice.getMessage().startsWith("creds: "), twice.getMessage());
    }

    @Test
    void theControlLineIsTheBrokersUnlessLoweredWithinJnatsDefaultAndRefusedOutsideIt() {
        Creds user = BrokerClients.unrestricted(alpha);
        NatsConnector.Builder b = NatsConnector.builder().server("nats://127.0.0.1:4222").creds(user).label("test");
        assertEquals(ai.cotal.core.config.ServerConfig.MAX_CONTROL_LINE, b.build().options().build().getMaxControlLine());
        assertEquals(4096, b.controlLine(4096).build().options().build().getMaxControlLine());
        for (int bad : new int[] {4095, 0, ai.cotal.core.config.ServerConfig.MAX_CONTROL_LINE + 1}) {
            CotalException refused = assertThrows(CotalException.class, () -> b.controlLine(bad).build());
            assertEquals(ErrorCode.BAD_REQUEST, refused.code());
            assertEquals("controlLine: must be 4096 to 65536 bytes", refused.getMessage());
        }
    }
}
