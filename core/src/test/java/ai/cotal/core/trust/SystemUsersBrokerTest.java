package ai.cotal.core.trust;

import static ai.cotal.core.BrokerClients.config;
import static ai.cotal.core.BrokerClients.connect;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.BrokerClients.Client;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Message;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The two system-account profiles: exactly their one request each, the broker refuses the rest. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class SystemUsersBrokerTest {
    private final Clock clock = Clock.systemUTC();
    private final BrokerAuth broker = BrokerAuth.create("sys", clock);
    private final SpaceAccountAuth alpha = SpaceAccountAuth.create(broker, "alpha", clock);

    @Test
    void membershipObserverReadsItsAccountConnzOnly(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> config(b, broker, List.of(alpha), List.of()));
        Creds observer = Creds.mintSystem(broker, Identity.create(), CredentialProfile.MEMBERSHIP_OBSERVER,
                alpha.accountPublicKey(), MintOptions.defaults());
        try (Client client = connect(nats, observer)) {
            Message reply = client.connection().request("$SYS.REQ.ACCOUNT." + alpha.accountPublicKey() + ".CONNZ",
                    "{}".getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(5));
            assertTrue(new String(reply.getData(), StandardCharsets.UTF_8).contains("\"connections\""));
            client.connection().publish("$SYS.REQ.SERVER.PING.CONNZ", new byte[0]);
            assertTrue(client.violation().get(5, TimeUnit.SECONDS).contains("PING.CONNZ"));
        }
    }

    @Test
    void connectionEvictorMayKickButNotRead(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> config(b, broker, List.of(alpha), List.of()));
        Creds evictor = Creds.mintSystem(broker, Identity.create(), CredentialProfile.CONNECTION_EVICTOR, null,
                MintOptions.defaults());
        try (Client client = connect(nats, evictor)) {
            Message reply = client.connection().request("$SYS.REQ.SERVER." + nats.serverId() + ".KICK",
                    "{\"cid\":999999}".getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(5));
            assertTrue(reply.getData().length > 0, "the server answers the kick request");
            client.connection().publish("$SYS.REQ.ACCOUNT." + alpha.accountPublicKey() + ".CONNZ", new byte[0]);
            assertTrue(client.violation().get(5, TimeUnit.SECONDS).contains("CONNZ"));
        }
    }
}
