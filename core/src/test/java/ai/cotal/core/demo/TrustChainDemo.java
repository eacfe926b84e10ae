package ai.cotal.core.demo;

import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.core.id.SpaceName;
import ai.cotal.testbroker.BackendChoice;
import ai.cotal.testbroker.NatsBroker;
import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StreamConfiguration;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The trust-chain walkthrough of docs/trust-chain.md, end to end on a real nats-server: a broker
 * trust, two spaces, a rendered config, a running broker, scoped credentials and a refusal.
 * Run it with {@code scripts/demo}.
 */
public final class TrustChainDemo {
    private TrustChainDemo() {
    }

    public static void main(String[] args) throws Exception {
        Clock clock = Clock.systemUTC();
        BrokerAuth broker = BrokerAuth.create("demo", clock);
        step("operator " + broker.operatorPublicKey() + " with system account " + broker.systemAccount());
        List<SpaceAccountAuth> spaces = List.of(SpaceAccountAuth.create(broker, "alpha", clock),
                SpaceAccountAuth.create(broker, "beta", clock));
        spaces.forEach(s -> step("space '" + s.space() + "' = data account " + s.accountPublicKey()
                + ", users signed by " + s.signing().publicKey()));
        try (NatsBroker nats = NatsBroker.start(BackendChoice.detect(), b -> ServerConfig.render(broker, spaces,
                ServerConfigOptions.builder().transport(Transport.plaintext()).storeDir(b.storeDir()).build()))) {
            step("nats-server " + nats.version() + " runs the rendered config at " + nats.url());
            for (SpaceAccountAuth space : spaces) {
                Creds provisioner = Creds.mint(new SpaceAuth(broker, space), Identity.create(),
                        CredentialProfile.PROVISIONER, MintOptions.defaults());
                try (Connection nc = Nats.connect(options(nats, provisioner).build())) {
                    String stream = "CHAT_" + SpaceName.token(space.space());
                    nc.jetStreamManagement().addStream(StreamConfiguration.builder().name(stream)
                            .subjects(new SpaceName(space.space()).subjectPrefix() + ".chat.>").build());
                    step("provisioner of '" + space.space() + "' created stream " + stream);
                }
            }
            Creds probe = Creds.mint(new SpaceAuth(broker, spaces.get(0)), Identity.create(), CredentialProfile.PROBE,
                    MintOptions.defaults());
            CompletableFuture<String> refusal = new CompletableFuture<>();
            try (Connection nc = Nats.connect(options(nats, probe).errorListener(new ErrorListener() {
                @Override
                public void errorOccurred(Connection conn, String error) {
                    refusal.complete(error);
                }
            }).build())) {
                nc.publish("cotal.alpha.chat.general", "hello".getBytes(StandardCharsets.UTF_8));
                step("probe publish -> the broker says: " + refusal.get(5, TimeUnit.SECONDS));
            }
        }
        step("broker stopped; done");
    }

    private static Options.Builder options(NatsBroker nats, Creds creds) {
        return new Options.Builder().server(nats.url()).authHandler(creds.authHandler())
                .inboxPrefix(creds.inboxPrefix()).maxControlLine(ServerConfig.MAX_CONTROL_LINE)
                .connectionTimeout(Duration.ofSeconds(5)).noReconnect();
    }

    private static void step(String text) {
        System.out.println("demo: " + text);
    }
}
