package ai.cotal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.core.stores.DeliveryClass;
import ai.cotal.core.stores.SpaceStores;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.workspace.SecretKeys;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The seed's embedded-space provisioning fragment, as written in Java in docs/trust-chain.md §6
 * with the workspace's own {@link SecretKeys}, then a DM served end to end: a direct message into
 * DM_ read by the recipient's durable, and a durable delivery through the delivery credential
 * (control request, INBOX_, its reader durable, DLV_, the recipient's durable); the space's default
 * delivery class is the one the fragment wrote. Every step runs under the profile the matrix names.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class EmbeddedSpaceProvisioningBrokerTest {
    private static final String UID_B = "bbbbbbbbbbbbbbbbbbbbbbbbbb";
    private static final String UID_A = "aaaaaaaaaaaaaaaaaaaaaaaaaa";

    private static Connection connect(NatsBroker nats, Creds creds) {
        return NatsConnector.builder().server(nats.url()).creds(creds).label("provisioning-test").build().connect();
    }

    private static MintOptions agent(String owner, String actor, String uid) {
        return MintOptions.builder().owner(owner).actor(actor).lifecycleUid(uid).build();
    }

    @Test
    void theProvisioningFragmentGivesASpaceWhoseDeliveryCredentialServesADm(NatsBrokers brokers) throws Exception {
        Clock clock = Clock.systemUTC();
        BrokerAuth broker = BrokerAuth.create("alpha", clock);
        SpaceAccountAuth account = SpaceAccountAuth.create(broker, "alpha", clock);
        NatsBroker nats = brokers.start(b -> ServerConfig.render(broker, List.of(account), ServerConfigOptions.builder()
                .transport(Transport.plaintext()).storeDir(b.storeDir()).build()));
        String brokerUrl = nats.url();
        String space = "alpha";
        SpaceAuth auth = new SpaceAuth(broker, account);
        SecretStore store = new InMemorySecretStore();

        // --- docs/trust-chain.md §6, verbatim ---
        Creds provisionerCreds = Creds.mint(auth, Identity.create(), CredentialProfile.PROVISIONER, MintOptions.defaults());
        try (Connection nc = NatsConnector.builder().server(brokerUrl).creds(provisionerCreds).label("provision").build()
                .connect()) {
            SpaceStores.setup(nc, space);
            DeliveryClass.ensureDefault(nc, space, DeliveryClass.DURABLE);
        }
        Creds deliveryCreds = Creds.mint(auth, Identity.create(), CredentialProfile.DELIVERY, MintOptions.defaults());
        store.put(SecretKeys.deliveryCredsKey(space), deliveryCreds.text().getBytes(StandardCharsets.UTF_8));
        // --- end of the fragment ---
        assertTrue(store.get("space.616c706861/delivery.creds").isPresent(), "the key docs/trust-chain.md names");

        // The recipient's incarnation: the lifecycle executor creates its DM and delivery durables.
        try (Connection executor = connect(nats, Creds.mint(auth, Identity.create(), CredentialProfile.LIFECYCLE_EXECUTOR,
                agent("ownerb", "bob", UID_B)))) {
            var jsm = executor.jetStreamManagement();
            jsm.addOrUpdateConsumer("DM_alpha", ConsumerConfiguration.builder().durable("dm_ownerb-bob-" + UID_B)
                    .filterSubject("cotal.alpha.inst.ownerb.bob.>").build());
            jsm.addOrUpdateConsumer("DLV_alpha", ConsumerConfiguration.builder().durable("dlv_ownerb-bob-" + UID_B)
                    .filterSubject("cotal.alpha.dlv.ownerb.bob.>").build());
        }
        Creds delivery = Creds.parse(new String(store.get(SecretKeys.deliveryCredsKey(space)).orElseThrow(), StandardCharsets.UTF_8));
        try (Connection alice = connect(nats, Creds.mint(auth, Identity.create(), CredentialProfile.AGENT,
                agent("ownera", "alice", UID_A)));
             Connection bob = connect(nats, Creds.mint(auth, Identity.create(), CredentialProfile.AGENT,
                agent("ownerb", "bob", UID_B)));
             Connection daemon = connect(nats, delivery)) {
            // A direct message: into DM_, read by the recipient through its own durable.
            alice.jetStream().publish("cotal.alpha.inst.ownerb.bob.ownera.alice", "hello bob".getBytes(StandardCharsets.UTF_8));
            JetStreamSubscription dm = bob.jetStream().subscribe(null, PullSubscribeOptions.bind("DM_alpha",
                    "dm_ownerb-bob-" + UID_B));
            Message direct = dm.fetch(1, Duration.ofSeconds(5)).get(0);
            assertEquals("hello bob", new String(direct.getData(), StandardCharsets.UTF_8));
            direct.ack();

            // A durable delivery: the delivery daemon serves alice's control request.
            Dispatcher control = daemon.createDispatcher(request -> {
                try {
                    String to = new String(request.getData(), StandardCharsets.UTF_8); // "<owner>.<actor>.<id>"
                    Headers id = new Headers().add("Nats-Msg-Id", to);
                    daemon.jetStream().publish(NatsMessage.builder().subject("cotal.alpha.dinbox." + to).headers(id)
                            .data("for " + to).build());
                    daemon.publish(request.getReplyTo(), "queued".getBytes(StandardCharsets.UTF_8));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            control.subscribe("cotal.alpha.ctl.delivery.*.*");
            daemon.flush(Duration.ofSeconds(5));
            Message answer = alice.request("cotal.alpha.ctl.delivery.ownera.alice",
                    "ownerb.bob.m1".getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(5));
            assertEquals("queued", new String(answer.getData(), StandardCharsets.UTF_8));

            daemon.jetStreamManagement().addOrUpdateConsumer("INBOX_alpha", ConsumerConfiguration.builder().durable("reader")
                    .build());
            JetStreamSubscription reader = daemon.jetStream().subscribe(null, PullSubscribeOptions.bind("INBOX_alpha",
                    "reader"));
            Message queued = reader.fetch(1, Duration.ofSeconds(5)).get(0);
            String target = queued.getSubject().substring("cotal.alpha.dinbox.".length());
            daemon.jetStream().publish("cotal.alpha.dlv." + target, queued.getData());
            queued.ack();

            JetStreamSubscription dlv = bob.jetStream().subscribe(null, PullSubscribeOptions.bind("DLV_alpha",
                    "dlv_ownerb-bob-" + UID_B));
            Message delivered = dlv.fetch(1, Duration.ofSeconds(5)).get(0);
            assertEquals("cotal.alpha.dlv.ownerb.bob.m1", delivered.getSubject());
            assertEquals("for ownerb.bob.m1", new String(delivered.getData(), StandardCharsets.UTF_8));
            delivered.ack();
            // the class the fragment wrote, as every reader of the space sees it
            assertEquals(Optional.of(DeliveryClass.DURABLE), DeliveryClass.readDefault(daemon, space));
            assertEquals(DeliveryClass.DURABLE, DeliveryClass.resolve(Optional.empty(), bob, space),
                    "a channel without its own class is durable");
            assertEquals("{\"deliveryClass\":\"durable\"}", new String(daemon.keyValue("cotal_channels_alpha")
                    .get(DeliveryClass.DEFAULTS_KEY).getValue(), StandardCharsets.UTF_8));
        }
    }
}
