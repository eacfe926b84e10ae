package ai.cotal.examples;

import ai.cotal.auth.Grant;
import ai.cotal.auth.ActorTokens;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.SpaceProvisioning;
import ai.cotal.auth.service.AuthService;
import ai.cotal.auth.service.AuthServiceOptions;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.id.Principal;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.workspace.NatsServer;
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
 * The stock service on a plane the program holds: a space provisioned, its nats-server, the plane
 * opened (it answers the space's callout), {@code AuthService} started on that plane, an agent
 * granted with an actor token, and the token exchanged over HTTP on the service's loopback face
 * for a bearer the plane verifies.
 *
 * <p>Size (measured by ExampleSizeTest): 32 lines (no blanks, comments or imports), 12 distinct
 * SDK types.
 */
public final class ServiceExchange {
    /** {@code args[0]}: the nats-server binary. */
    public static void main(String[] args) throws Exception {
        run(Path.of(args[0]), System.out);
    }

    /** Runs the example on a nats-server run from {@code natsServer}; prints the exchange's answer without its token. */
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
                     .callout(space.callout()).build());
             AuthService service = AuthService.start(plane, AuthServiceOptions.builder().build())) {
            String owner = "u_abcdefghijklmnopqrstuvwxyz";
            String actorToken = ActorTokens.newActorToken();
            plane.ledger().grantManagedActor(Principal.of(owner, "agent1"), Grant.of(List.of("chat"),
                    List.of(), List.of("general")), ActorTokens.tokenHash(actorToken), ActorTokens.newLifecycleUid());
            HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                    service.loopbackUrl() + "/exchange")).header("Authorization", "Bearer " + service.capability())
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"owner\":\""
                            + owner + "\",\"actor\":\"agent1\",\"actorToken\":\"" + actorToken + "\",\"ttlSec\":300}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            Matcher token = Pattern.compile("\"token\":\"([^\"]+)\"").matcher(answer.body());
            out.println("exchange answered " + answer.statusCode() + "; the plane verifies the bearer for "
                    + (token.find() ? plane.bearers().verify(token.group(1)).owner() : answer.body()));
        }
    }
}
