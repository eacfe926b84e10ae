package ai.cotal.auth.internal.plane;

import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.servicehost.HostResult;
import ai.cotal.workspace.SecretKeys;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Message;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes live connections through the broker (SPEC §13.16): one {@code $SYS.REQ.SERVER.<id>.KICK}
 * request {@code {"cid": n}} per connection, sent together on a short-lived system connection with
 * the space's connection-evictor credential (read from the {@link SecretStore} at each call), each
 * answered within {@link #ANSWER}. A claim update cannot do it: user revocations live in the data
 * account's JWT, which only the operator's key signs. Thread-safe (no state).
 */
final class ConnectionEvictor {
    /** How long one kick may take to be answered. */
    static final Duration ANSWER = Duration.ofSeconds(2);
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionEvictor.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<String> servers;
    private final String space;
    private final SecretStore store;
    private final SSLContext ssl;

    ConnectionEvictor(List<String> servers, String space, SecretStore store, SSLContext ssl) {
        this.servers = List.copyOf(servers);
        this.space = space;
        this.store = store;
        this.ssl = ssl;
    }

    /** A connection as the broker names it: the server's id (one server run) and the client id it gave it. */
    record Target(String serverId, long clientId) {
        Target {
            Objects.requireNonNull(serverId, "serverId");
        }
    }

    /**
     * Kicks every connection; {@code closed} counts those the broker closed or no longer holds,
     * {@code open} the rest, with why ({@link HostResult.Unclosed}: no evictor credential, the
     * broker not reached, a kick not answered); {@code swept} is passed through to the evidence.
     */
    HostResult.LiveConnections kick(Collection<Target> connections, boolean swept) {
        if (connections.isEmpty()) {
            return HostResult.LiveConnections.allClosed(0, swept);
        }
        Optional<String> creds = store.getText(SecretKeys.connectionEvictorCredsKey(space));
        if (creds.isEmpty()) {
            LOG.warn("auth-plane: space {}: {} live connection(s) stay open until their credential"
                    + " expires: the secret store holds no connection-evictor credential", space, connections.size());
            return new HostResult.LiveConnections(0, connections.size(), swept, HostResult.Unclosed.NO_EVICTOR_CREDENTIAL);
        }
        try (Connection system = NatsConnector.builder().servers(servers).creds(Creds.parse(creds.get()))
                .label("cotal:plane-evictor:" + space).timeout(ANSWER).maxReconnects(0).sslContext(ssl).build()
                .connect()) {
            List<CompletableFuture<Message>> answers = new ArrayList<>();
            for (Target c : connections) {
                answers.add(system.request("$SYS.REQ.SERVER." + c.serverId() + ".KICK",
                        ("{\"cid\":" + c.clientId() + "}").getBytes(StandardCharsets.UTF_8)));
            }
            long until = System.nanoTime() + ANSWER.toNanos();
            int closed = 0;
            for (CompletableFuture<Message> answer : answers) {
                if (closedBy(answer, until)) {
                    closed++;
                }
            }
            if (closed < connections.size()) {
                LOG.warn("auth-plane: space {}: the broker did not close {} live connection(s)", space,
                        connections.size() - closed);
            }
            int open = connections.size() - closed;
            return new HostResult.LiveConnections(closed, open, swept, open == 0 ? null : HostResult.Unclosed.KICK_UNANSWERED);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            LOG.warn("auth-plane: space {}: cannot reach the broker to close {} live connection(s) ({})",
                    space, connections.size(), e.getClass().getSimpleName());
            return new HostResult.LiveConnections(0, connections.size(), swept, HostResult.Unclosed.BROKER_UNREACHABLE);
        }
    }

    /** True when the broker's answer says the connection is closed: no error, or no such client. */
    private static boolean closedBy(CompletableFuture<Message> answer, long until) throws InterruptedException {
        try {
            Message reply = answer.get(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
            JsonNode error = JSON.readTree(reply.getData()).path("error");
            return error.isMissingNode() || error.isNull() || error.path("description").asText("").startsWith("no such client");
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException | java.io.IOException e) {
            return false;
        }
    }
}
