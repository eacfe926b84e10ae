package ai.cotal.core.trust;

import ai.cotal.core.id.SpaceName;
import static ai.cotal.core.BrokerClients.config;
import static ai.cotal.core.BrokerClients.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.BrokerClients;
import ai.cotal.core.BrokerClients.Client;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.Nats;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The trust chain, config and credentials on a real nats-server. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class TrustChainBrokerTest {
    private final Clock clock = Clock.systemUTC();
    private final BrokerAuth broker = BrokerAuth.create("test broker", clock);
    private final SpaceAccountAuth alpha = SpaceAccountAuth.create(broker, "alpha", clock);
    private final SpaceAccountAuth beta = SpaceAccountAuth.create(broker, "Beta space", clock);
    private final CalloutAuth callout = CalloutAuth.create("alpha", broker, alpha.accountPublicKey(), clock);

    private NatsBroker start(NatsBrokers brokers) {
        return brokers.start(b -> config(b, broker, List.of(alpha, beta), List.of(callout.jwt())));
    }

    private Creds mint(SpaceAccountAuth space, CredentialProfile profile, MintOptions options) {
        return Creds.mint(new SpaceAuth(broker, space), Identity.create(), profile, options);
    }

    @Test
    void provisionerCreatesAStreamInEachSpace(NatsBrokers brokers) throws Exception {
        NatsBroker nats = start(brokers);
        for (SpaceAccountAuth space : List.of(alpha, beta)) {
            String stream = "CHAT_" + SpaceName.token(space.space());
            try (Client client = connect(nats, mint(space, CredentialProfile.PROVISIONER, MintOptions.defaults()))) {
                StreamInfo info = client.connection().jetStreamManagement().addStream(StreamConfiguration.builder()
                        .name(stream).subjects(new SpaceName(space.space()).subjectPrefix() + ".chat.>").build());
                assertEquals(stream, info.getConfiguration().getName());
            }
        }
    }

    @Test
    void probePublishIsRefusedByTheBroker(NatsBrokers brokers) throws Exception {
        NatsBroker nats = start(brokers);
        try (Client probe = connect(nats, mint(alpha, CredentialProfile.PROBE, MintOptions.defaults()))) {
            probe.connection().publish("cotal.alpha.chat.x", "hi".getBytes(StandardCharsets.UTF_8));
            String violation = probe.violation().get(5, TimeUnit.SECONDS);
            assertTrue(violation.contains("Publish"), violation);
        }
    }

    @Test
    void aCredWithTwentyChannelGrantsConnects(NatsBrokers brokers) throws Exception {
        NatsBroker nats = start(brokers);
        List<String> channels = IntStream.range(0, 20).mapToObj(i -> "channel-number-" + i).toList();
        Creds agent = mint(alpha, CredentialProfile.AGENT, MintOptions.builder().owner("o1").actor("a1")
                .lifecycleUid("abcdefghijklmnopqrstuvwxyz12").allowPublish(channels).allowSubscribe(channels).build());
        assertTrue(agent.jwt().length() > 4096, "the JWT must exceed the default 4 KiB control line: " + agent.jwt().length());
        try (Client client = connect(nats, agent)) {
            assertEquals(Connection.Status.CONNECTED, client.connection().getStatus());
        }
    }

    @Test
    void sentinelAloneIsPowerlessAndCalloutUserIsKnown(NatsBrokers brokers) throws Exception {
        NatsBroker nats = start(brokers);
        // Without a callout service answering, a sentinel connect cannot complete: the account routes it to the callout.
        IOException refused = BrokerClients.refusedConnect(nats, callout.sentinelCreds());
        assertTrue(refused.getMessage().contains("Authorization Violation")
                || refused.getMessage().contains("Unable to connect"), refused.getMessage());
        try (Client service = connect(nats, callout.calloutCreds())) {
            assertEquals(Connection.Status.CONNECTED, service.connection().getStatus());
        }
    }

    @Test
    void rotatedSigningKeyRefusesOldCredsAfterReload(NatsBrokers brokers) throws Exception {
        NatsBroker nats = start(brokers);
        Creds old = mint(alpha, CredentialProfile.OBSERVER, MintOptions.defaults());
        connect(nats, old).close();
        SpaceAccountAuth rotated = alpha.rotateDataAccountSigningKey(broker, clock);
        nats.reload(config(nats, broker, List.of(rotated, beta), List.of(callout.jwt())));
        IOException refused = BrokerClients.refusedConnect(nats, old);
        assertTrue(refused.getMessage().contains("Authorization Violation"), refused.getMessage());
        try (Client fresh = connect(nats, mint(rotated, CredentialProfile.OBSERVER, MintOptions.defaults()))) {
            assertEquals(Connection.Status.CONNECTED, fresh.connection().getStatus());
        }
    }

    @Test
    void shortLivedCredIsClosedByTheBrokerAtExpiryAndCannotReconnect(NatsBrokers brokers) throws Exception {
        NatsBroker nats = start(brokers);
        Creds shortLived = mint(alpha, CredentialProfile.OBSERVER, MintOptions.builder().expiresInSeconds(2).build());
        CompletableFuture<Void> closed = new CompletableFuture<>();
        Connection connection = Nats.connect(BrokerClients.options(nats, shortLived).connectionListener((conn, event) -> {
            if (event == ConnectionListener.Events.CLOSED || event == ConnectionListener.Events.DISCONNECTED) {
                closed.complete(null);
            }
        }).build());
        assertEquals(Connection.Status.CONNECTED, connection.getStatus());
        closed.get(10, TimeUnit.SECONDS);
        assertEquals("User Authentication Expired", connection.getLastError());
        connection.close();
        // nats-server accepts a JWT through its exp second; the refusal starts with the next one.
        long exp = ai.cotal.core.jwt.NatsJwt.decode(shortLived.jwt()).exp();
        long wait = java.time.Instant.ofEpochSecond(exp + 1).toEpochMilli() - System.currentTimeMillis();
        if (wait > 0) {
            Thread.sleep(wait);
        }
        IOException refused = BrokerClients.refusedConnect(nats, shortLived);
        assertTrue(refused.getMessage().contains("Authorization Violation"), refused.getMessage());
    }
}
