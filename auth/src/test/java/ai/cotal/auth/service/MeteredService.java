package ai.cotal.auth.service;

import ai.cotal.auth.Grant;
import ai.cotal.auth.SpaceProvisioning;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.cotal.auth.ActorTokens;
import ai.cotal.auth.Granter;
import ai.cotal.auth.IdpPin;
import ai.cotal.auth.InboxNonce;
import ai.cotal.auth.ServiceEndpointHost;
import ai.cotal.auth.ServiceEndpoints;
import ai.cotal.auth.exchange.TokenExchange;
import ai.cotal.auth.micrometer.MicrometerSink;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.workspace.SecretKeys;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.MeterRegistry;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A stock service of space {@code alpha} on a real broker, recording into a registry, and the
 * traffic the metrics tests drive through it (SPEC §13.21): exchanges, connects through the
 * callout, service-endpoint invocations, a health read and a capability flood. Collects every
 * secret and id it handled, so a test can check that none reached a meter's tags.
 */
final class MeteredService {
    static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";
    static final String AGENT = "agent1";
    static final String AGENT_SECRET = "agent-secret-0123456789";
    private static final String IID = "abcdefghijklmnopqrstuvwxyz";
    private static final ObjectMapper JSON = new ObjectMapper();

    final Clock clock = Clock.systemUTC();
    final SpaceAuth auth = SpaceAuth.create("alpha", clock);
    final CalloutAuth callout = CalloutAuth.create("alpha", auth.broker(), auth.account().accountPublicKey(), clock);
    final InMemorySecretStore store = new InMemorySecretStore();
    final HttpClient http = HttpClient.newHttpClient();
    /** Every secret, id, nonce and path the traffic used: none may appear in a tag value. */
    final List<String> handled = new ArrayList<>();

    NatsBroker broker(NatsBrokers brokers) {
        provision();
        return brokers.start(b -> ServerConfig.render(auth.broker(), List.of(auth.account()), ServerConfigOptions.builder()
                .transport(Transport.plaintext()).storeDir(b.storeDir()).extraAccounts(List.of(callout.jwt())).build()));
    }

    /** A broker of its own (the caller closes it), outside a JUnit extension. */
    NatsBroker broker() {
        provision();
        return NatsBroker.start(ai.cotal.testbroker.BackendChoice.detect(), b -> ServerConfig.render(auth.broker(),
                List.of(auth.account()), ServerConfigOptions.builder().transport(Transport.plaintext()).storeDir(b.storeDir())
                        .extraAccounts(List.of(callout.jwt())).build()));
    }

    private void provision() {
        SpaceProvisioning.forSpace(auth, callout).write(store);
    }

    /** The service with service endpoints, two mints per principal a minute, recording into {@code registry}. */
    AuthService start(NatsBroker nats, Path stateDir, MeterRegistry registry, boolean spaceTag) {
        handled.add(stateDir.toString());
        return AuthService.open(StockPlane.options(nats.url(), "alpha", stateDir, store)
                .serviceEndpoints(ServiceEndpoints.normal()).mintsPerPrincipalPerMinute(2)
                .meterSink(MicrometerSink.of(registry)).meterSpaceTag(spaceTag).build(), AuthServiceOptions.builder().build());
    }

    private String capability(Path stateDir) throws Exception {
        String capability = JSON.readTree(Files.readString(stateDir.resolve(TokenExchange.DISCOVERY_FILE)))
                .path("capability").asText();
        handled.add(capability);
        return capability;
    }

    HttpResponse<String> exchange(AuthService service, Path stateDir, String body, String capability) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(service.loopbackUrl() + "/exchange"))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + capability)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> health(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url + "/health")).build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * Drives the traffic whose counts {@code MetricsBrokerTest} asserts: 2 exchanges issued, a third
     * refused by the mint budget (429), a wrong secret (401), a malformed body (400); one connect
     * admitted and three refused (no bearer, a forged bearer, another principal's nonce); a register
     * (pending), a decide (completed) and a register through {@code serve} (unsupported); one health
     * read; then 30 wrong capabilities (401) and one more wrong one throttled (429).
     */
    void drive(NatsBroker nats, AuthService service, Path stateDir) throws Exception {
        var plane = service.plane();
        plane.ledger().grantManagedActor(Principal.of(OWNER, AGENT), Grant.of(List.of(), List.of(), List.of()),
                ActorTokens.tokenHash(AGENT_SECRET), new LifecycleUid(IID));
        handled.addAll(List.of(OWNER, AGENT, AGENT_SECRET, IID));
        String capability = capability(stateDir);
        String agent = "{\"owner\":\"" + OWNER + "\",\"actor\":\"" + AGENT + "\",\"actorToken\":\"" + AGENT_SECRET + "\"}";
        HttpResponse<String> first = exchange(service, stateDir, agent, capability);
        assertEquals(200, first.statusCode(), first.body());
        assertEquals(200, exchange(service, stateDir, agent, capability).statusCode());
        assertEquals(429, exchange(service, stateDir, agent, capability).statusCode(), "the third mint of a minute");
        assertEquals(401, exchange(service, stateDir, agent.replace(AGENT_SECRET, "wrong-secret"), capability).statusCode());
        assertEquals(400, exchange(service, stateDir, "{}", capability).statusCode());
        String bearer = JSON.readTree(first.body()).path("token").asText();
        handled.add(bearer);
        handled.add(plane.bearers().verify(bearer).credentialId().value());

        String nonce = InboxNonce.forPrincipal(Principal.of(OWNER, AGENT));
        handled.add(nonce);
        Nats.connect(client(nats, bearer, nonce).build()).close();
        refused(client(nats, null, InboxNonce.forPrincipal(Principal.of(OWNER, AGENT))));
        refused(client(nats, "not-a-bearer", InboxNonce.forPrincipal(Principal.of(OWNER, AGENT))));
        String foreign = InboxNonce.forPrincipal(Principal.of(OWNER, "someone_else"));
        handled.add(foreign);
        refused(client(nats, bearer, foreign));

        IdpPin pin = IdpPin.pin(stateDir, "https://idp.example");
        Owner owner = plane.deriveOwner(pin.issuer(), "alice");
        plane.ledger().grantActor(Principal.of(owner.value(), "laptop"), Grant.of(List.of(), List.of(), List.of()));
        handled.addAll(List.of(owner.value(), "laptop"));
        Granter granter = new Granter.Owner(owner.value(), "laptop");
        ServiceEndpointHost host = plane.serviceEndpoints().orElseThrow();
        HostRequest.Register register = new HostRequest.Register("req-metrics-0000000001", "weather", IID,
                "sha256:" + "c".repeat(64), List.of("ask"));
        assertEquals(HostResult.Status.PENDING, host.admit(granter, register).status());
        assertEquals(HostResult.Status.COMPLETED, host.serve(granter, new HostRequest.Decide("req-metrics-0000000002",
                "weather", IID, HostRequest.Decision.APPROVE)).status());
        assertEquals(HostResult.Status.UNSUPPORTED, host.serve(granter, register).status());

        assertEquals(200, health(service.loopbackUrl()).statusCode());
        for (int i = 0; i < 30; i++) {
            assertEquals(401, exchange(service, stateDir, agent, "wrong-capability-" + i).statusCode());
        }
        assertEquals(429, exchange(service, stateDir, agent, "wrong-capability-30").statusCode(),
                "the capability window is full");
    }

    private Options.Builder client(NatsBroker nats, String bearer, String nonce) {
        Options.Builder options = new Options.Builder().server(nats.url()).authHandler(callout.sentinelCreds().authHandler())
                .connectionName(nonce).inboxPrefix(InboxNonce.inboxPrefix(nonce)).maxControlLine(ServerConfig.MAX_CONTROL_LINE)
                .connectionTimeout(Duration.ofMillis(2500)).noReconnect();
        return bearer == null ? options : options.token(bearer.toCharArray());
    }

    private static void refused(Options.Builder client) {
        assertThrows(Exception.class, () -> Nats.connect(client.build()).close(), "the broker refuses the connect");
    }
}
