package ai.cotal.auth.exchange;

import ai.cotal.auth.Grant;
import ai.cotal.auth.SpaceProvisioning;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.IdpPin;
import ai.cotal.auth.InboxNonce;
import ai.cotal.auth.service.AuthService;
import ai.cotal.auth.service.AuthServiceOptions;
import ai.cotal.auth.service.StockPlane;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
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
import ai.cotal.testbroker.oidc.OidcTestProvider;
import ai.cotal.workspace.SecretKeys;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stock service configured with an OpenID Connect provider (SPEC §13.18) on the real broker:
 * it pins the provider at start, a human exchanges an RS256 or ES256 proof for a bearer and
 * connects through the auth callout with it; a space pinned to another provider refuses the start;
 * a fresh service fetches the JWKS once for an unknown kid; a restart with other algorithms
 * re-pins (logged, owners unchanged) and one without keeps the pin's (logged).
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class OidcServiceBrokerTest {
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

    private AuthPlaneOptions plane(NatsBroker nats) {
        return StockPlane.options(nats.url(), "alpha", stateDir, store).build();
    }

    private AuthServiceOptions options(String issuer) {
        return AuthServiceOptions.builder().oidc(issuer, OidcTestProvider.CLIENT_ID, List.of())
                .publicAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build();
    }

    private HttpResponse<String> exchange(AuthService service, String idpToken) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(service.publicUrl().orElseThrow() + "/exchange"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                        "{\"idpToken\":\"" + idpToken + "\",\"actor\":\"laptop\"}")).build(), HttpResponse.BodyHandlers.ofString());
    }

    private AuthServiceOptions options(String issuer, List<String> algorithms) {
        return AuthServiceOptions.builder().oidc(issuer, OidcTestProvider.CLIENT_ID, algorithms)
                .publicAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build();
    }

    @Test
    void aFreshServiceFetchesOnceForAnUnknownKidAndAnAlgorithmChangeIsALoggedRePinOfTheSameOwners(NatsBrokers brokers)
            throws Exception {
        NatsBroker nats = broker(brokers);
        try (OidcTestProvider idp = new OidcTestProvider()) {
            Owner owner;
            try (AuthService service = AuthService.open(plane(nats), options(idp.issuer(), List.of("RS256")))) {
                owner = service.plane().deriveOwner(idp.issuer(), "alice");
                service.plane().ledger().grantActor(Principal.of(owner.value(), "laptop"), Grant.of(List.of(), List.of(),
                        List.of()));
                HttpResponse<String> unknown = exchange(service, OidcTestProvider.sign(new JWSHeader.Builder(
                        JWSAlgorithm.RS256).keyID("unknown").build(), idp.claims("alice").build(),
                        new RSASSASigner(new RSAKeyGenerator(2048).generate())));
                assertEquals(401, unknown.statusCode(), unknown.body());
                assertEquals(1, idp.jwksFetches(), "one unknown-kid token on a fresh service: exactly one JWKS fetch");
                assertEquals(200, exchange(service, idp.rs256("alice")).statusCode());
            }

            AuthService[] opened = new AuthService[1];
            String log = OidcPinTest.logged(() -> opened[0] = AuthService.open(plane(nats), options(idp.issuer(),
                    List.of("ES256"))));
            try (AuthService service = opened[0]) {
                assertTrue(log.contains("idp.json: re-pinned " + idp.issuer() + " (client cotal-space) from algorithms"
                        + " [RS256] to [ES256]; owners unchanged"), log);
                assertEquals(List.of("ES256"), service.plane().idpPin().orElseThrow().algorithms());
                assertEquals(owner, service.plane().deriveOwner(idp.issuer(), "alice"), "owners unchanged");
                HttpResponse<String> es256 = exchange(service, idp.es256("alice"));
                assertEquals(200, es256.statusCode(), es256.body());
                assertEquals(owner.value(), JSON.readTree(es256.body()).path("owner").asText(), "the same row answers");
                HttpResponse<String> rs256 = exchange(service, idp.rs256("alice"));
                assertEquals(401, rs256.statusCode(), rs256.body());
                assertEquals("identity proof: alg RS256 is not accepted by the pin", JSON.readTree(rs256.body())
                        .path("error").asText());
            }

            log = OidcPinTest.logged(() -> opened[0] = AuthService.open(plane(nats), options(idp.issuer(), List.of())));
            try (AuthService service = opened[0]) {
                assertTrue(log.contains("idp.json: no algorithms configured; keeping the pin's [ES256] for "
                        + idp.issuer()), log);
                assertEquals(List.of("ES256"), service.plane().idpPin().orElseThrow().algorithms(),
                        "an omitted list keeps the pin's, not what the provider advertises");
            }
        }
    }

    @Test
    void rs256AndEs256ProofsConnectThroughTheCallout(NatsBrokers brokers) throws Exception {
        NatsBroker nats = broker(brokers);
        try (OidcTestProvider idp = new OidcTestProvider();
             AuthService service = AuthService.open(plane(nats), options(idp.issuer()))) {
            IdpPin pin = IdpPin.read(stateDir).orElseThrow();
            assertEquals(IdpPin.Kind.OIDC, pin.kind(), "the service pinned the provider at start");
            assertTrue(Files.readString(stateDir.resolve("idp.json")).contains("\"kind\":\"oidc\""));
            Owner owner = service.plane().deriveOwner(pin.issuer(), "alice");
            service.plane().ledger().grantActor(Principal.of(owner.value(), "laptop"), Grant.of(List.of(), List.of(), List.of()));
            for (String idpToken : List.of(idp.rs256("alice"), idp.es256("alice"))) {
                HttpResponse<String> exchanged = http.send(HttpRequest.newBuilder(URI.create(service.publicUrl().orElseThrow()
                        + "/exchange")).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                        "{\"idpToken\":\"" + idpToken + "\",\"actor\":\"laptop\"}")).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(200, exchanged.statusCode(), exchanged.body());
                JsonNode token = JSON.readTree(exchanged.body());
                assertEquals(owner.value(), token.get("owner").asText());
                String nonce = InboxNonce.forPrincipal(Principal.of(owner.value(), "laptop"));
                try (Connection joined = Nats.connect(new Options.Builder().server(nats.url())
                        .authHandler(Nats.staticCredentials(callout.sentinelCreds().text().getBytes(StandardCharsets.UTF_8)))
                        .token(token.get("token").asText().toCharArray()).connectionName(nonce)
                        .inboxPrefix(InboxNonce.inboxPrefix(nonce)).maxControlLine(ServerConfig.MAX_CONTROL_LINE)
                        .noReconnect().build())) {
                    joined.flush(Duration.ofSeconds(5));
                    assertEquals(Connection.Status.CONNECTED, joined.getStatus());
                    assertTrue(joined.getServerInfo().isAuthRequired(), "admitted by the callout");
                }
            }
        }
        try (OidcTestProvider other = new OidcTestProvider()) {
            CotalException refused = assertThrows(CotalException.class, () -> AuthService.open(plane(nats),
                    options(other.issuer())).close());
            assertEquals(ErrorCode.FAILED_PRECONDITION, refused.code(), refused.getMessage());
            assertEquals(0, other.jwksFetches());
            assertFalse(Files.exists(stateDir.resolve(TokenExchange.DISCOVERY_FILE)), "nothing was started");
        }
        try (AuthAuthorityPlane again = AuthAuthorityPlane.open(plane(nats))) {
            assertEquals(3, again.claim().generation(), "the refused open closed the plane it had opened");
        }
    }

    @Test
    void onTheStoreLedgerTheServicePinsInTheStoreAndTheExchangeReadsThatPin(NatsBrokers brokers) throws Exception {
        NatsBroker nats = broker(brokers);
        AuthPlaneOptions onStore = StockPlane.options(nats.url(), "alpha", stateDir, store)
                .ledger(ai.cotal.auth.LedgerStore.jetStream()).build();
        try (OidcTestProvider idp = new OidcTestProvider();
             AuthService service = AuthService.open(onStore, options(idp.issuer()))) {
            IdpPin pin = service.plane().idpPin().orElseThrow();
            assertEquals(IdpPin.Kind.OIDC, pin.kind(), "the service pinned the provider at start, through pinIdpOidc");
            assertFalse(Files.exists(stateDir.resolve("idp.json")), "not in the state directory");
            assertEquals("store", service.plane().health().ledger());
            Owner owner = service.plane().deriveOwner(pin.issuer(), "alice");
            service.plane().ledger().grantActor(Principal.of(owner.value(), "laptop"), Grant.of(List.of(), List.of(), List.of()));
            HttpResponse<String> exchanged = http.send(HttpRequest.newBuilder(URI.create(service.publicUrl().orElseThrow()
                    + "/exchange")).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                    "{\"idpToken\":\"" + idp.rs256("alice") + "\",\"actor\":\"laptop\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, exchanged.statusCode(), exchanged.body());
            assertEquals(owner.value(), JSON.readTree(exchanged.body()).get("owner").asText());
        }
        try (OidcTestProvider other = new OidcTestProvider()) {
            CotalException refused = assertThrows(CotalException.class, () -> AuthService.open(
                    StockPlane.options(nats.url(), "alpha", stateDir, store).ledger(ai.cotal.auth.LedgerStore.jetStream())
                            .build(), options(other.issuer())).close());
            assertEquals(ErrorCode.FAILED_PRECONDITION, refused.code(), refused.getMessage());
            assertTrue(refused.getMessage().endsWith("re-pinning to another identity provider is refused"), refused.getMessage());
        }
    }
}
