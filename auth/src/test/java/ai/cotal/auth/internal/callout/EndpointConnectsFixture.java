package ai.cotal.auth.internal.callout;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.ActorTokens;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.EndpointInstance;
import ai.cotal.auth.Grant;
import ai.cotal.auth.Granter;
import ai.cotal.auth.InboxNonce;
import ai.cotal.auth.ServiceEndpointHost;
import ai.cotal.auth.exchange.ExchangeOptions;
import ai.cotal.auth.exchange.TokenExchange;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.Principal;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokers;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.Nats;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A broker with the space's callout account, a plane hosting service endpoints (with the
 * space's connection-evictor credential in its store), its callout responder and token exchange,
 * and the principals of the end-to-end tests: the owner's interactive {@code laptop} (host
 * writes), its managed {@code weathersvc} (the service process) and two callers.
 */
final class EndpointConnectsFixture implements AutoCloseable {
    static final String OWNER = CalloutFixture.OWNER;
    static final String SERVICE_TOKEN = "weather-service-secret";
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final ObjectMapper JSON = new ObjectMapper();

    final CalloutFixture f = new CalloutFixture();
    final NatsBroker nats;
    final Granter.Owner owner = new Granter.Owner(OWNER, "laptop");
    AuthAuthorityPlane plane;
    ServiceEndpointHost host;
    private AuthCallout callout;
    private TokenExchange exchange;
    private final Path stateDir;

    EndpointConnectsFixture(NatsBrokers brokers, Path stateDir) {
        this.stateDir = stateDir;
        nats = brokers.start(f::config);
        openPlane();
        plane.ledger().grantActor(Principal.of(OWNER, "laptop"), Grant.of(List.of("chat"), List.of(), List.of()));
        plane.ledger().grantManagedActor(Principal.of(OWNER, "weathersvc"), Grant.of(List.of("chat"), List.of(), List.of()),
                ActorTokens.tokenHash(SERVICE_TOKEN), ActorTokens.newLifecycleUid());
    }

    private void openPlane() {
        plane = AuthAuthorityPlane.open(f.plane.options(nats, stateDir).serviceEndpoints(true).build());
        host = plane.serviceEndpoints().orElseThrow();
        callout = f.responder(nats, plane);
        exchange = TokenExchange.start(ExchangeOptions.builder().plane(plane).stateDir(stateDir).build());
    }

    /**
     * A new plane for the space, as after a restart: stops the exchange and the callout, ends the
     * current plane with {@code end} (its close, or a crash), opens the next plane with its
     * callout and exchange. Connections the first plane admitted stay on the broker. Returns the
     * plane that was ended.
     */
    AuthAuthorityPlane replacePlane(java.util.function.Consumer<AuthAuthorityPlane> end) throws Exception {
        AuthAuthorityPlane first = plane;
        exchange.close();
        callout.close();
        end.accept(first);
        openPlane();
        return first;
    }

    static String rid() {
        return "req-" + random("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 24);
    }

    static String iid() {
        return random("abcdefghijklmnopqrstuvwxyz0123456789", 26);
    }

    private static String random(String alphabet, int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append(alphabet.charAt(RANDOM.nextInt(alphabet.length())));
        }
        return b.toString();
    }

    /** Registers {@code instance} (pending its owner's decision). */
    void register(EndpointInstance instance) {
        HostResult registered = host.admit(owner, new HostRequest.Register(rid(), instance.endpoint(), instance.instanceId(),
                "sha256:" + "c".repeat(64), List.of("ask", "stream")));
        assertEquals(HostResult.Status.PENDING, registered.status(), "register: " + registered.reason());
    }

    /** The owner decides {@code instance}. */
    void decide(EndpointInstance instance, HostRequest.Decision decision) {
        HostResult decided = host.serve(owner, new HostRequest.Decide(rid(), instance.endpoint(), instance.instanceId(),
                decision));
        assertEquals(HostResult.Status.COMPLETED, decided.status(), "decide: " + decided.reason());
    }

    /** A fresh approved instance of {@code endpoint}. */
    EndpointInstance approved(String endpoint) {
        EndpointInstance instance = new EndpointInstance(endpoint, iid());
        register(instance);
        decide(instance, HostRequest.Decision.APPROVE);
        return instance;
    }

    /** Grants {@code actor} of the owner the capabilities on {@code instance}; returns the grant id. */
    String grant(EndpointInstance instance, String actor, List<String> capabilities) {
        row(actor);
        HostResult granted = host.serve(owner, new HostRequest.CallerGrant(rid(), instance.endpoint(), instance.instanceId(),
                new HostRequest.Grantee(OWNER, actor), capabilities));
        assertEquals(HostResult.Status.GRANTED, granted.status(), "caller-grant: " + granted.reason());
        return granted.grant().grantId();
    }

    /** The service's serving bearer for {@code instance}, exchanged on the loopback face with its actor token. */
    String servingBearer(EndpointInstance instance) throws Exception {
        JsonNode capability = JSON.readTree(Files.readString(stateDir.resolve(TokenExchange.DISCOVERY_FILE)));
        String body = "{\"owner\":\"" + OWNER + "\",\"actor\":\"weathersvc\",\"actorToken\":\"" + SERVICE_TOKEN
                + "\",\"view\":\"" + EndpointInstance.SERVING_VIEW + "\",\"endpoint\":\"" + instance.endpoint()
                + "\",\"instanceId\":\"" + instance.instanceId() + "\"}";
        HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create(exchange.loopbackUrl() + "/exchange")).header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + capability.path("capability").asText())
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, answer.statusCode(), answer.body());
        return JSON.readTree(answer.body()).path("token").asText();
    }

    /** A plain bearer of the owner's {@code actor}, granted now (an interactive row). */
    String callerBearer(String actor) {
        ActorRow row = row(actor);
        CredentialId credential = plane.credentials().mint(Principal.of(OWNER, actor), row.lifecycleUid()).id();
        return plane.bearers().issue(BearerRequest.member(Principal.of(OWNER, actor), List.of("chat"), row.lifecycleUid(), credential,
                Duration.ofMinutes(5)));
    }

    /** The owner's interactive row of {@code actor}, granted when absent. */
    ActorRow row(String actor) {
        return plane.ledger().find(Principal.of(OWNER, actor)).orElseGet(() -> plane.ledger().grantActor(Principal.of(OWNER, actor),
                Grant.of(List.of("chat"), List.of(), List.of())));
    }

    /** A connected client whose {@code closed} completes on the connection's first DISCONNECTED or CLOSED event. */
    record Watched(CalloutFixture.Client client, CompletableFuture<Long> closed) implements AutoCloseable {
        Connection connection() {
            return client.connection();
        }

        @Override
        public void close() throws InterruptedException {
            client.close();
        }
    }

    /** Connects through the callout as {@code actor} with {@code bearer}, watching for the broker closing it. */
    Watched connect(String actor, String bearer) throws Exception {
        CompletableFuture<Long> closed = new CompletableFuture<>();
        CompletableFuture<String> violation = new CompletableFuture<>();
        String nonce = InboxNonce.forPrincipal(Principal.of(OWNER, actor));
        ConnectionListener listener = (conn, type) -> {
            if (type == ConnectionListener.Events.DISCONNECTED || type == ConnectionListener.Events.CLOSED) {
                closed.complete(System.nanoTime());
            }
        };
        Connection connection = Nats.connect(f.clientOptions(nats, bearer, nonce).connectionListener(listener)
                .errorListener(new io.nats.client.ErrorListener() {
                    @Override
                    public void errorOccurred(Connection conn, String error) {
                        if (error.contains("Permissions Violation")) {
                            violation.complete(error);
                        }
                    }
                }).build());
        return new Watched(new CalloutFixture.Client(connection, violation), closed);
    }

    /** A connect the broker must refuse. */
    Exception refused(String actor, String bearer) {
        return f.refused(nats, bearer, InboxNonce.forPrincipal(Principal.of(OWNER, actor)));
    }

    @Override
    public void close() throws Exception {
        try {
            exchange.close();
            callout.close();
        } finally {
            plane.close();
        }
    }
}
