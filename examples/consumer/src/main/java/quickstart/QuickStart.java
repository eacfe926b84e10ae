package quickstart;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.ConnectCredential;
import ai.cotal.auth.Grant;
import ai.cotal.auth.MemberOptions;
import ai.cotal.auth.SpaceProvisioning;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.id.Principal;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.workspace.NatsServer;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Subscription;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * The README's quick start, as an embedder pastes it: the body of {@link #main} is the README's
 * quick-start block, word for word (the SDK's ReadmeQuickStartTest compares the two). It needs a
 * nats-server >= 2.12 on {@code PATH} (or named by {@code -Dcotal.nats.server}).
 */
public final class QuickStart {
    private QuickStart() {
    }

    /** A new space, its nats-server, the authority plane on its callout, one actor admitted and publishing. */
    public static void main(String[] args) throws Exception {
        SpaceProvisioning space = SpaceProvisioning.create("alpha", Clock.systemUTC());   // a new space's keys
        InMemorySecretStore store = new InMemorySecretStore();
        space.write(store);
        Path dir = Files.createTempDirectory("cotal");
        String config = space.serverConfig(ServerConfigOptions.builder().transport(Transport.plaintext())
                .port(ServerConfigOptions.ANY_PORT).storeDir(dir.resolve("jetstream")).build());
        try (NatsServer nats = NatsServer.start(NatsServer.find(), config, dir.resolve("nats"));   // returns when ready
             AuthAuthorityPlane plane = AuthAuthorityPlane.open(AuthPlaneOptions.builder().server(nats.url())
                     .space("alpha").stateDir(dir.resolve("state")).secretStore(store).signer(space.signer())
                     .callout(space.callout()).build())) {                // the plane answers the callout
            Principal laptop = Principal.of("u_abcdefghijklmnopqrstuvwxyz", "laptop");
            ConnectCredential credential = plane.credentials().mint(laptop, plane.ledger().grantActor(laptop,
                    Grant.of(List.of("chat"), List.of("general"), List.of("general"))).lifecycleUid());
            String bearer = plane.bearers().issue(BearerRequest.member(credential, Duration.ofMinutes(5)));
            try (Connection nc = Nats.connect(MemberOptions.builder(space.callout().sentinelCreds(), laptop, bearer)
                    .server(nats.url()).build())) {                       // admitted by the callout
                Subscription general = nc.subscribe("cotal.alpha.chat.*.*.general");   // what the grant opens
                nc.publish("cotal.alpha.chat." + laptop.owner().value() + ".laptop.general",
                        "hello".getBytes(StandardCharsets.UTF_8));
                System.out.println("received on " + general.nextMessage(Duration.ofSeconds(5)).getSubject());
            }
        }
    }
}
