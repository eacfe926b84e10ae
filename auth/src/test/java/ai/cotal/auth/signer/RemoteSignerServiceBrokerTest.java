package ai.cotal.auth.signer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.Grant;
import ai.cotal.auth.Granter;
import ai.cotal.auth.IdpPin;
import ai.cotal.auth.InboxNonce;
import ai.cotal.auth.ServiceEndpointHost;
import ai.cotal.auth.ServiceEndpoints;
import ai.cotal.auth.exchange.TestIdp;
import ai.cotal.auth.service.AuthService;
import ai.cotal.auth.service.AuthServiceOptions;
import ai.cotal.auth.service.StockPlane;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import ai.cotal.core.keys.InMemoryAccountSigner;
import ai.cotal.core.keys.NKeyPair;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.core.trust.SpaceSigner;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.signer.SignerPolicy;
import ai.cotal.signer.SignerServer;
import ai.cotal.signer.UnixSocketAccountSigner;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.workspace.SecretKeys;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #24 on a real broker: the stock service signs through a remote signer and holds no seed;
 * the demo flow (host routes, exchange, a connect through the callout) works end to end.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class RemoteSignerServiceBrokerTest {
    private static final String IID = "abcdefghijklmnopqrstuvwxyz";

    @TempDir
    Path dir;

    static Connection connect(NatsBroker nats, RemoteSpace space, String bearer, String nonce) throws Exception {
        return Nats.connect(new Options.Builder().server(nats.url()).authHandler(space.callout.sentinelCreds().authHandler())
                .token(bearer.toCharArray()).connectionName(nonce).inboxPrefix(InboxNonce.inboxPrefix(nonce))
                .maxControlLine(ServerConfig.MAX_CONTROL_LINE).connectionTimeout(Duration.ofMillis(2500)).noReconnect()
                .build());
    }

    @Test
    void theStockServiceRunsEndToEndWithTheSeedOnlyInTheSigner(NatsBrokers brokers) throws Exception {
        RemoteSpace space = new RemoteSpace(dir);
        NatsBroker nats = brokers.start(space::config);
        Path stateDir = dir.resolve("state");
        try (SignerServer signer = space.startSigner(SignerPolicy.stock("alpha", space.auth.account().accountPublicKey()));
             TestIdp idp = new TestIdp()) {
            SpaceSigner remote = space.remote();
            IdpPin pin = IdpPin.pin(stateDir, idp.url());
            AuthPlaneOptions plane = StockPlane.options(nats.url(), "alpha", stateDir, space.serviceStore, remote)
                    .serviceEndpoints(ServiceEndpoints.normal()).build();
            try (AuthService service = AuthService.open(plane, AuthServiceOptions.builder()
                    .publicAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build())) {
                Owner owner = service.plane().deriveOwner(pin.issuer(), "alice");
                service.plane().ledger().grantActor(Principal.of(owner.value(), "laptop"), Grant.of(List.of("chat"),
                        List.of("general"), List.of("general")));
                ServiceEndpointHost host = service.plane().serviceEndpoints().orElseThrow();
                Granter granter = new Granter.Owner(owner.value(), "laptop");
                assertEquals(HostResult.Status.PENDING, host.admit(granter, new HostRequest.Register("req-remote-000000001",
                        "weather", IID, "sha256:" + "c".repeat(64), List.of("ask"))).status());
                assertEquals(HostResult.Status.COMPLETED, host.serve(granter, new HostRequest.Decide("req-remote-000000002",
                        "weather", IID, HostRequest.Decision.APPROVE)).status());

                HttpResponse<String> exchanged = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(service.publicUrl().orElseThrow() + "/exchange")).header("Content-Type",
                        "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"idpToken\":\""
                        + idp.token("alice", 300) + "\",\"actor\":\"laptop\"}")).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(200, exchanged.statusCode(), exchanged.body());
                String bearer = new ObjectMapper().readTree(exchanged.body()).path("token").asText();
                String nonce = InboxNonce.forPrincipal(Principal.of(owner.value(), "laptop"));
                try (Connection member = connect(nats, space, bearer, nonce)) {
                    member.publish("cotal.alpha.chat." + owner + ".laptop.general", "hi".getBytes(StandardCharsets.UTF_8));
                    member.flush(Duration.ofSeconds(5));
                    assertEquals(Connection.Status.CONNECTED, member.getStatus(), "admitted by the callout");
                }

                assertTrue(space.serviceStore.get(SecretKeys.serviceKeysKey("alpha")).isEmpty(), "no seed in the service's store");
                assertInstanceOf(UnixSocketAccountSigner.class, plane.signer().signing());
                String signingKey = space.auth.account().signing().publicKey();
                assertTrue(SeedReach.find(service, o -> o instanceof UnixSocketAccountSigner).isPresent(),
                        "the walk reaches the plane's signer slot (a control for the search below)");
                assertTrue(SeedReach.find(space.auth.strip(), o -> o instanceof NKeyPair k && k.publicKey().equals(signingKey))
                        .isPresent(), "the walk finds the key inside an in-memory signer (a control)");
                assertEquals(java.util.Optional.empty(), SeedReach.find(service, o -> o instanceof InMemoryAccountSigner
                        || o instanceof SpaceAuth || o instanceof SpaceAccountAuth
                        || o instanceof NKeyPair k && k.publicKey().equals(signingKey)),
                        "no key pair of the data account's signing key is reachable from the running service");
            }
            Set<String> profiles = space.auditLines().stream().filter(l -> l.path("event").asText().equals("signed"))
                    .map(l -> l.path("profile").asText()).collect(Collectors.toSet());
            assertTrue(profiles.containsAll(Set.of("auth-mint", "auth-reader", "auth-barrier", "auth-issuer", "ep-discovery",
                    "auth-scan", "records-scan", "auth-admin", "ep-effect", "callout-member")), profiles.toString());
            for (JsonNode line : space.auditLines()) {
                assertFalse(line.toString().contains(space.auth.account().signing().seed()), "no seed in the audit log");
            }
        }
    }

    @Test
    void theServiceMaterialWithARemoteSignerRefusesAStoreThatStillHoldsTheSeed(NatsBrokers brokers) throws Exception {
        RemoteSpace space = new RemoteSpace(dir);
        NatsBroker nats = brokers.start(space::config);
        space.serviceStore.put(SecretKeys.serviceKeysKey("alpha"), space.signerStore.get(SecretKeys.serviceKeysKey("alpha"))
                .orElseThrow()); // the seed is back in the service's store
        try (SignerServer signer = space.startSigner(SignerPolicy.stock("alpha", space.auth.account().accountPublicKey()))) {
            CotalException refused = assertThrows(CotalException.class, () -> StockPlane.options(nats.url(), "alpha",
                    dir.resolve("state"), space.serviceStore, space.remote()));
            assertEquals(ErrorCode.FAILED_PRECONDITION, refused.code());
            assertTrue(refused.getMessage().startsWith("secretStore: holds " + SecretKeys.serviceKeysKey("alpha")),
                    refused.getMessage());
        }
    }
}
