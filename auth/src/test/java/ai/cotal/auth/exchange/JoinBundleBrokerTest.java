package ai.cotal.auth.exchange;

import ai.cotal.auth.Grant;
import ai.cotal.auth.SpaceProvisioning;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.IdpPin;
import ai.cotal.auth.InboxNonce;
import ai.cotal.auth.service.AuthService;
import ai.cotal.auth.service.AuthServiceOptions;
import ai.cotal.auth.service.StockPlane;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.workspace.SecretKeys;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.AuthenticationException;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The join bundle (SPEC §13.17) on the real broker: a client that knows only the public face's
 * URL reads {@code /.well-known/cotal-mesh}, signs in at the IdP it names, exchanges at the URL
 * it names and connects to the server it names with the sentinel it carries, through the callout.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class JoinBundleBrokerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Clock clock = Clock.systemUTC();
    private final SpaceAuth auth = SpaceAuth.create("alpha", clock);
    private final CalloutAuth callout = CalloutAuth.create("alpha", auth.broker(), auth.account().accountPublicKey(), clock);
    private final InMemorySecretStore store = new InMemorySecretStore();
    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path stateDir;

    private NatsBroker broker(NatsBrokers brokers) {
        SpaceProvisioning.forSpace(auth, callout).write(store);
        return brokers.start(b -> ServerConfig.render(auth.broker(), List.of(auth.account()), ServerConfigOptions.builder()
                .transport(Transport.plaintext()).storeDir(b.storeDir()).extraAccounts(List.of(callout.jwt())).build()));
    }

    private HttpResponse<String> get(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aClientThatKnowsOnlyThePublicUrlJoinsThroughTheCallout(NatsBrokers brokers) throws Exception {
        NatsBroker nats = broker(brokers);
        try (TestIdp idp = new TestIdp();
             AuthService service = AuthService.open(StockPlane.options(nats.url(), "alpha", stateDir, store).build(),
                     AuthServiceOptions.builder().agentProvisioningUrl("https://agents.example/provision")
                     .publicAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build())) {
            IdpPin pin = IdpPin.pin(stateDir, idp.url());
            Owner owner = service.plane().deriveOwner(pin.issuer(), "alice");
            service.plane().ledger().grantActor(Principal.of(owner.value(), "laptop"), Grant.of(List.of(), List.of(), List.of()));
            String publicUrl = service.publicUrl().orElseThrow();
            assertFalse(publicUrl.endsWith(":0"), "the bound port, not the asked-for 0: " + publicUrl);

            // 1. the only thing the client knows: the public URL
            HttpResponse<String> answer = get(publicUrl + JoinBundle.ROUTE);
            assertEquals(200, answer.statusCode(), answer.body());
            assertEquals("no-store", answer.headers().firstValue("Cache-Control").orElse(""));
            JsonNode bundle = JSON.readTree(answer.body());
            assertEquals(List.of("space", "server", "tlsRequired", "userAuth", "sentinelCreds"), fields(bundle));
            assertEquals("alpha", bundle.get("space").asText());
            assertEquals(nats.url(), bundle.get("server").asText(), "no advertisedServer: the plane's first server");
            assertFalse(bundle.get("tlsRequired").asBoolean(), "a nats:// server is plaintext");
            JsonNode userAuth = bundle.get("userAuth");
            assertEquals("cotal", userAuth.get("provider").asText());
            assertEquals(idp.url(), userAuth.get("idp").get("url").asText());
            assertEquals(pin.issuer(), userAuth.get("idp").get("issuer").asText());
            assertEquals(pin.audience(), userAuth.get("idp").get("audience").asText());
            JsonNode endpoints = userAuth.get("endpoints");
            assertEquals(publicUrl, endpoints.get("url").asText());
            assertEquals(publicUrl + "/manager-service-authority", endpoints.get("managerAuthorityUrl").asText());
            assertEquals("https://agents.example/provision", endpoints.get("agentProvisioningUrl").asText());
            assertEquals(callout.sentinelCreds().text(), bundle.get("sentinelCreds").asText());

            // 2. sign in at the bundle's IdP, exchange at the bundle's URL
            String idpToken = idp.token("alice", userAuth.get("idp").get("issuer").asText(),
                    userAuth.get("idp").get("audience").asText(), 600);
            HttpResponse<String> exchanged = http.send(HttpRequest.newBuilder(URI.create(endpoints.get("url").asText()
                    + "/exchange")).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                    "{\"idpToken\":\"" + idpToken + "\",\"actor\":\"laptop\"}")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, exchanged.statusCode(), exchanged.body());
            JsonNode token = JSON.readTree(exchanged.body());
            assertEquals(owner.value(), token.get("owner").asText());

            // 3. connect to the bundle's server with the bundle's sentinel and the bearer: the callout admits it
            String nonce = InboxNonce.forPrincipal(Principal.of(token.get("owner").asText(), "laptop"));
            byte[] sentinel = bundle.get("sentinelCreds").asText().getBytes(StandardCharsets.UTF_8);
            try (Connection joined = Nats.connect(new Options.Builder().server(bundle.get("server").asText())
                    .authHandler(Nats.staticCredentials(sentinel)).token(token.get("token").asText().toCharArray())
                    .connectionName(nonce).inboxPrefix(InboxNonce.inboxPrefix(nonce))
                    .maxControlLine(ServerConfig.MAX_CONTROL_LINE).noReconnect().build())) {
                assertEquals(Connection.Status.CONNECTED, joined.getStatus());
                joined.flush(Duration.ofSeconds(5));
                assertTrue(joined.getServerInfo().isAuthRequired(), "admitted by the callout, not by an open broker");
            }

            // the sentinel alone is refused by the broker: it reaches the callout, which needs a bearer
            assertThrows(AuthenticationException.class, () -> Nats.connect(new Options.Builder()
                    .server(bundle.get("server").asText()).authHandler(Nats.staticCredentials(sentinel))
                    .connectionName(nonce).maxControlLine(ServerConfig.MAX_CONTROL_LINE).noReconnect().build()));

            // the loopback face does not serve the bundle; the public face takes GET only
            assertEquals(404, get(service.loopbackUrl() + JoinBundle.ROUTE).statusCode());
            assertEquals(405, http.send(HttpRequest.newBuilder(URI.create(publicUrl + JoinBundle.ROUTE))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString()).statusCode());
        }
    }

    private static List<String> fields(JsonNode node) {
        List<String> names = new java.util.ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
