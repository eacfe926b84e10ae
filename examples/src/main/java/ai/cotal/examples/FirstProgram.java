package ai.cotal.examples;

import ai.cotal.auth.ActorLedger;
import ai.cotal.auth.ActorRow;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.InboxNonce;
import ai.cotal.auth.SpaceProvisioning;
import ai.cotal.auth.callout.AuthCallout;
import ai.cotal.auth.callout.CalloutOptions;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.Principal;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAuth;
import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The first program: a trust chain with one space, its secrets, the broker config, the authority
 * plane and its auth callout, one actor granted, a credential and a bearer, a jnats client that
 * connects through the callout and is refused by the broker on a subject it was not granted, then
 * the credential revoked and the client's next connect refused.
 *
 * <p>Size (measured by ExampleSizeTest): 64 lines (no blanks, comments or imports), 18 distinct
 * SDK types. Before one-door provisioning: 163 lines, 30 types.
 */
public final class FirstProgram {
    private FirstProgram() {
    }

    /** Starts nats-server with a config and answers the URL it listens on. */
    public interface Broker {
        /** Starts the broker with {@code config}; answers its URL. */
        String start(String config) throws Exception;
    }

    /** {@code args[0]}: the nats-server binary; it listens on 127.0.0.1:4222. */
    public static void main(String[] args) throws Exception {
        run(natsServer(args[0]), System.out);
    }

    /** A broker: {@code binary} run with the config on 127.0.0.1:4222, answered once it is ready. */
    public static Broker natsServer(String binary) {
        return config -> {
            Path file = Files.writeString(Files.createTempFile("cotal", ".conf"), config);
            Process nats = new ProcessBuilder(binary, "-c", file.toString()).redirectErrorStream(true).start();
            new BufferedReader(new InputStreamReader(nats.getInputStream(), StandardCharsets.UTF_8)).lines()
                    .filter(line -> line.contains("Server is ready")).findFirst().orElseThrow();
            return "nats://127.0.0.1:4222";
        };
    }

    /** Runs the program on the broker {@code broker} starts; prints what the broker answered. */
    public static void run(Broker broker, PrintStream out) throws Exception {
        Clock clock = Clock.systemUTC();
        SpaceAuth auth = SpaceAuth.create("alpha", clock);
        CalloutAuth callout = CalloutAuth.create("alpha", auth.broker(), auth.space().accountPublicKey(), clock);
        InMemorySecretStore store = new InMemorySecretStore();
        SpaceProvisioning.forSpace(auth, callout).write(store);
        Path dir = Files.createTempDirectory("cotal");
        String url = broker.start(ServerConfig.render(auth.broker(), List.of(auth.space()), ServerConfigOptions.builder()
                .transport(Transport.plaintext()).storeDir(dir.resolve("jetstream"))
                .extraAccounts(List.of(callout.jwt())).build()));
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(AuthPlaneOptions.builder().server(url).space("alpha")
                .stateDir(dir.resolve("state")).secretStore(store).signer(auth.strip()).build());
             AuthCallout responder = AuthCallout.start(CalloutOptions.builder().server(url).callout(callout)
                .plane(plane.calloutAuthority()).signer(auth.strip()).build())) {
            String owner = "u_abcdefghijklmnopqrstuvwxyz";
            Principal laptop = Principal.of(owner, "laptop");
            ActorRow row = plane.ledger().grantActor(laptop, ActorLedger.Grant.of(List.of("chat"), List.of(),
                    List.of("general")));
            CredentialId credential = plane.credentials().mint(laptop, row.lifecycleUid());
            String bearer = plane.bearers().issue(BearerRequest.member(laptop, row.lifecycleUid(), credential,
                    Duration.ofMinutes(5)));
            String nonce = InboxNonce.forPrincipal(laptop);
            CompletableFuture<String> refusal = new CompletableFuture<>();
            Options options = new Options.Builder().server(url).authHandler(callout.sentinelCreds().authHandler())
                    .token(bearer.toCharArray()).connectionName(nonce).inboxPrefix(InboxNonce.inboxPrefix(nonce))
                    .maxControlLine(ServerConfig.MAX_CONTROL_LINE).noReconnect().errorListener(new ErrorListener() {
                        @Override
                        public void errorOccurred(Connection conn, String error) {
                            refusal.complete(error);
                        }
                    }).build();
            try (Connection nc = Nats.connect(options)) {
                nc.publish("cotal.alpha.chat." + owner + ".laptop.general", "hello".getBytes(StandardCharsets.UTF_8));
                nc.publish("cotal.alpha.chat." + owner + ".laptop.secret", "hello".getBytes(StandardCharsets.UTF_8));
                out.println("connected; the broker refused: " + refusal.get(10, TimeUnit.SECONDS));
            }
            plane.credentials().revoke(credential);
            try {
                Nats.connect(options).close();
            } catch (IOException e) {
                out.println("revoked; the broker refused the connect: " + e.getMessage());
            }
        }
    }
}
