package quickstart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.Grant;
import ai.cotal.auth.MemberOptions;
import ai.cotal.auth.SpaceProvisioning;
import ai.cotal.auth.service.AuthService;
import ai.cotal.auth.service.AuthServiceOptions;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.id.Principal;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.testbroker.oidc.OidcTestProvider;
import ai.cotal.testbroker.oidc.OidcTestProviderExtension;
import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Subscription;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A person signs in: the development identity provider signs an ID token, the stock service's
 * exchange trades it for a bearer over HTTP, and a jnats client carrying that bearer is admitted
 * by the space's auth callout on a real nats-server, which delivers on the granted channel and
 * refuses the one next to it. The test broker finds nats-server by itself; nothing is configured.
 */
@Tag("broker")
@ExtendWith({NatsBrokerExtension.class, OidcTestProviderExtension.class})
class SignInTest {
    private static final Pattern FIELD = Pattern.compile("\"(token|owner)\":\"([^\"]+)\"");

    @Test
    void anIdTokenExchangedOverHttpAdmitsTheClientOnItsGrantedSubjects(NatsBrokers brokers, OidcTestProvider idp,
            @TempDir Path dir) throws Exception {
        SpaceProvisioning space = SpaceProvisioning.create("alpha", Clock.systemUTC());
        InMemorySecretStore store = new InMemorySecretStore();
        space.write(store);
        NatsBroker nats = brokers.start(b -> space.serverConfig(ServerConfigOptions.builder()
                .transport(Transport.plaintext()).storeDir(b.storeDir()).build()));
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(AuthPlaneOptions.builder().server(nats.url())
                     .space("alpha").stateDir(dir.resolve("state")).secretStore(store).signer(space.signer())
                     .callout(space.callout()).build());
             AuthService service = AuthService.start(plane, AuthServiceOptions.builder()
                     .oidc(idp.issuer(), idp.clientId(), List.of()).build())) {
            Principal laptop = Principal.of(plane.deriveOwner(idp.issuer(), "alice").value(), "laptop");
            plane.ledger().grantActor(laptop, Grant.of(List.of("chat"), List.of("general"), List.of("general")));

            HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(service.loopbackUrl() + "/exchange"))
                    .header("Authorization", "Bearer " + service.capability())
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(
                            "{\"idpToken\":\"" + idp.rs256("alice") + "\",\"actor\":\"laptop\"}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, answer.statusCode(), "the exchange refused the ID token: " + answer.body());
            String bearer = field(answer.body(), "token");
            assertEquals(laptop.owner().value(), field(answer.body(), "owner"), "the owner derived from [iss, sub]");

            try (Connection nc = Nats.connect(MemberOptions.builder(space.callout().sentinelCreds(), laptop, bearer)
                    .server(nats.url()).noReconnect().build())) {
                assertEquals(Connection.Status.CONNECTED, nc.getStatus(), "admitted by the callout");
                Subscription general = nc.subscribe("cotal.alpha.chat.*.*.general");
                String mine = "cotal.alpha.chat." + laptop.owner().value() + ".laptop.";
                nc.publish(mine + "general", "hello".getBytes(StandardCharsets.UTF_8));
                Message heard = general.nextMessage(Duration.ofSeconds(10));
                assertNotNull(heard, "the broker delivered nothing on the granted channel");
                assertEquals(mine + "general", heard.getSubject());
                assertEquals("hello", new String(heard.getData(), StandardCharsets.UTF_8));

                nc.publish(mine + "random", "hello".getBytes(StandardCharsets.UTF_8));
                nc.flush(Duration.ofSeconds(10)); // the broker answers in order: its refusal comes before the flush
                String refused = nc.getLastError();
                assertTrue(refused != null && refused.contains("Permissions Violation for Publish to \"" + mine
                        + "random\""), "the broker let an ungranted channel through: " + refused);
            }
        }
    }

    /** One string field of the exchange's JSON answer. */
    private static String field(String json, String name) {
        Matcher m = FIELD.matcher(json);
        while (m.find()) {
            if (m.group(1).equals(name)) {
                return m.group(2);
            }
        }
        throw new AssertionError("the exchange's answer has no " + name + " field");
    }
}
