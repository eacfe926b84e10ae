package ai.cotal.auth.internal.plane;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.InboxNonce;
import ai.cotal.auth.internal.callout.AuthCallout;
import ai.cotal.auth.internal.callout.CalloutFixture;
import ai.cotal.auth.exchange.ExchangeOptions;
import ai.cotal.auth.exchange.TokenExchange;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.Principal;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokers;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.Nats;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A broker with the space's callout account, a plane (with the connection-evictor credential in
 * its store), its callout responder and a token exchange with both faces: what the lifecycle tests
 * retire through.
 */
final class LifecycleFixture implements AutoCloseable {
    static final String OWNER = CalloutFixture.OWNER;
    private static final ObjectMapper JSON = new ObjectMapper();

    final CalloutFixture f = new CalloutFixture();
    final NatsBroker nats;
    final AuthAuthorityPlane plane;
    final TokenExchange exchange;
    private final AuthCallout callout;
    private final Path stateDir;
    private final HttpClient http = HttpClient.newHttpClient();

    LifecycleFixture(NatsBrokers brokers, Path stateDir) {
        this.stateDir = stateDir;
        nats = brokers.start(f::config);
        plane = AuthAuthorityPlane.open(f.plane.options(nats, stateDir).build());
        callout = f.responder(nats, plane);
        exchange = TokenExchange.start(ExchangeOptions.builder().plane(plane).stateDir(stateDir)
                .publicAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build());
    }

    /** A bearer of {@code row}'s lifecycle: a fresh credential row (the mint activates the lifecycle) and 5 minutes. */
    String bearer(ActorRow row) {
        CredentialId credential = plane.credentials().mint(Principal.of(OWNER, row.actor().value()), row.lifecycleUid()).id();
        return plane.bearers().issue(BearerRequest.member(Principal.of(OWNER, row.actor().value()), List.of("chat"), row.lifecycleUid(),
                credential, Duration.ofMinutes(5)));
    }

    /** A client connected through the callout, and a future completed when the broker closes it. */
    record Watched(Connection connection, CompletableFuture<Void> closed) implements AutoCloseable {
        @Override
        public void close() throws InterruptedException {
            connection.close();
        }
    }

    Watched connect(String actor, String bearer) throws Exception {
        CompletableFuture<Void> closed = new CompletableFuture<>();
        ConnectionListener listener = (conn, type) -> {
            if (type == ConnectionListener.Events.DISCONNECTED || type == ConnectionListener.Events.CLOSED) {
                closed.complete(null);
            }
        };
        return new Watched(Nats.connect(f.clientOptions(nats, bearer, InboxNonce.forPrincipal(Principal.of(OWNER, actor)))
                .connectionListener(listener).build()), closed);
    }

    /** A connect the broker must refuse; returns its refusal. */
    Exception refused(String actor, String bearer) {
        return f.refused(nats, bearer, InboxNonce.forPrincipal(Principal.of(OWNER, actor)));
    }

    /** The loopback face's capability, from the discovery file. */
    String capability() throws Exception {
        return JSON.readTree(Files.readString(stateDir.resolve(TokenExchange.DISCOVERY_FILE))).path("capability").asText();
    }

    /** POSTs {@code body} to {@code route} on the loopback face (with the capability when {@code withCapability}). */
    HttpResponse<String> post(String route, String body, boolean withCapability) throws Exception {
        return post(exchange.loopbackUrl(), route, body, withCapability);
    }

    HttpResponse<String> post(String url, String route, String body, boolean withCapability) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url + route))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (withCapability) {
            request.header("Authorization", "Bearer " + capability());
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A retire route's 200 answer, parsed. */
    JsonNode retire(String route, String actor, String uid) throws Exception {
        HttpResponse<String> answer = post(route, retireBody(actor, uid), true);
        if (answer.statusCode() != 200) {
            throw new AssertionError(route + " answered " + answer.statusCode() + ": " + answer.body());
        }
        return JSON.readTree(answer.body());
    }

    static String retireBody(String actor, String uid) {
        return "{\"owner\":\"" + OWNER + "\",\"actor\":\"" + actor + "\",\"lifecycleUid\":\"" + uid + "\"}";
    }

    @Override
    public void close() {
        exchange.close();
        callout.close();
        plane.close();
    }
}
