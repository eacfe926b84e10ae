package ai.cotal.examples;

import ai.cotal.auth.ActorTokens;
import ai.cotal.auth.Grant;
import ai.cotal.auth.SpaceProvisioning;
import ai.cotal.auth.exchange.TokenExchange;
import ai.cotal.auth.service.AuthService;
import ai.cotal.auth.service.AuthServiceOptions;
import ai.cotal.core.id.Principal;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAuth;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The stock service: a space provisioned, its broker config, {@code AuthService} started on it (the
 * service opens the space's plane itself), an agent granted with an actor token, and the token
 * exchanged over HTTP on the service's loopback face for a bearer the plane verifies.
 *
 * <p>Size (measured by ExampleSizeTest): 37 lines (no blanks, comments or imports), 13 distinct
 * SDK types.
 */
public final class ServiceExchange {
    private ServiceExchange() {
    }

    /** {@code args[0]}: the nats-server binary; it listens on 127.0.0.1:4222. */
    public static void main(String[] args) throws Exception {
        run(FirstProgram.natsServer(args[0]), System.out);
    }

    /** Runs the example on the broker {@code broker} starts; prints the exchange's answer without its token. */
    public static void run(FirstProgram.Broker broker, PrintStream out) throws Exception {
        Clock clock = Clock.systemUTC();
        SpaceAuth auth = SpaceAuth.create("alpha", clock);
        CalloutAuth callout = CalloutAuth.create("alpha", auth.broker(), auth.space().accountPublicKey(), clock);
        InMemorySecretStore store = new InMemorySecretStore();
        SpaceProvisioning.forSpace(auth, callout).write(store);
        Path dir = Files.createTempDirectory("cotal");
        String url = broker.start(ServerConfig.render(auth.broker(), List.of(auth.space()), ServerConfigOptions.builder()
                .transport(Transport.plaintext()).storeDir(dir.resolve("jetstream"))
                .extraAccounts(List.of(callout.jwt())).build()));
        try (AuthService service = AuthService.start(AuthServiceOptions.builder().server(url).space("alpha")
                .stateDir(dir.resolve("state")).secretStore(store).build())) {
            String owner = "u_abcdefghijklmnopqrstuvwxyz";
            String actorToken = ActorTokens.newActorToken();
            service.plane().ledger().grantManagedActor(Principal.of(owner, "agent1"), Grant.of(List.of("chat"), List.of(),
                    List.of("general")), ActorTokens.tokenHash(actorToken), ActorTokens.newLifecycleUid());
            Matcher capability = Pattern.compile("\"capability\":\"([^\"]+)\"")
                    .matcher(Files.readString(dir.resolve("state").resolve(TokenExchange.DISCOVERY_FILE)));
            capability.find();
            HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                    service.loopbackUrl() + "/exchange")).header("Authorization", "Bearer " + capability.group(1))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"owner\":\""
                            + owner + "\",\"actor\":\"agent1\",\"actorToken\":\"" + actorToken + "\",\"ttlSec\":300}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            Matcher token = Pattern.compile("\"token\":\"([^\"]+)\"").matcher(answer.body());
            out.println("exchange answered " + answer.statusCode() + "; the plane verifies the bearer for "
                    + (token.find() ? service.plane().bearers().verify(token.group(1)).owner() : answer.body()));
        }
    }
}
