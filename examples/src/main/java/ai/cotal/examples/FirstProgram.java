package ai.cotal.examples;

import ai.cotal.auth.Grant;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.ConnectCredential;
import ai.cotal.auth.MemberOptions;
import ai.cotal.auth.SpaceProvisioning;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.id.Principal;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.workspace.NatsServer;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * The first program: a new space provisioned into a secret store, a nats-server started with the
 * space's config, the authority plane answering the space's auth callout, one actor granted, a
 * credential and a bearer, a jnats client that connects through the callout and is refused by the
 * broker on a subject it was not granted, then the credential revoked and the client's next connect
 * refused.
 *
 * <p>Size (measured by ExampleSizeTest): 38 lines (no blanks, comments or imports), 12 distinct
 * SDK types. Before one-door provisioning: 163 lines, 30 types; before the plane answered its own
 * callout: 64 lines, 19 types.
 */
public final class FirstProgram {
    /** {@code args[0]}: the nats-server binary. */
    public static void main(String[] args) throws Exception {
        run(Path.of(args[0]), System.out);
    }

    /** Runs the program on a nats-server run from {@code natsServer}; prints what the broker answered. */
    public static void run(Path natsServer, PrintStream out) throws Exception {
        SpaceProvisioning space = SpaceProvisioning.create("alpha", Clock.systemUTC());
        InMemorySecretStore store = new InMemorySecretStore();
        space.write(store);
        Path dir = Files.createTempDirectory("cotal");
        String config = space.serverConfig(ServerConfigOptions.builder().transport(Transport.plaintext())
                .port(ServerConfigOptions.ANY_PORT).storeDir(dir.resolve("jetstream")).build());
        try (NatsServer nats = NatsServer.start(natsServer, config, dir.resolve("nats"));
             AuthAuthorityPlane plane = AuthAuthorityPlane.open(AuthPlaneOptions.builder().server(nats.url())
                     .space("alpha").stateDir(dir.resolve("state")).secretStore(store).signer(space.signer())
                     .callout(space.callout()).build())) {
            Principal laptop = Principal.of("u_abcdefghijklmnopqrstuvwxyz", "laptop");
            ConnectCredential credential = plane.credentials().mint(laptop, plane.ledger().grantActor(laptop,
                    Grant.of(List.of("chat"), List.of(), List.of("general"))).lifecycleUid());
            String bearer = plane.bearers().issue(BearerRequest.member(credential, Duration.ofMinutes(5)));
            Options options = MemberOptions.builder(space.callout().sentinelCreds(), laptop, bearer).server(nats.url())
                    .noReconnect().build();
            try (Connection nc = Nats.connect(options)) {
                String chat = "cotal.alpha.chat." + laptop.owner().value() + ".laptop.";
                nc.publish(chat + "general", "hello".getBytes(StandardCharsets.UTF_8));
                nc.publish(chat + "secret", "hello".getBytes(StandardCharsets.UTF_8));
                nc.flush(Duration.ofSeconds(10)); // the broker answers in order: its refusal comes before the flush
                out.println("connected; the broker refused: " + nc.getLastError());
            }
            plane.credentials().revoke(credential.id());
            try {
                Nats.connect(options).close();
            } catch (IOException e) {
                out.println("revoked; the broker refused the connect: " + e.getMessage());
            }
        }
    }
}
