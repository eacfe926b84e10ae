package ai.cotal.auth.internal.endpoint;

import ai.cotal.auth.PlaneFixture;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.creds.Creds;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.workspace.SecretKeys;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Subscription;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The space's connections as the broker sees them, through the space's membership observer: the
 * CONNZ listing, and the broker's disconnect events.
 */
final class SpaceConnections {
    /** One listed connection: its name, client id and authorized user key. */
    record Listed(String name, long cid, String user) {
    }

    private SpaceConnections() {
    }

    private static Connection observer(PlaneFixture f, NatsBroker nats) {
        Creds observer = Creds.parse(f.store.getText(SecretKeys.membershipObserverCredsKey("alpha")).orElseThrow());
        return NatsConnector.builder().server(nats.url()).creds(observer).label("test-observer").build().connect();
    }

    static List<Listed> connections(PlaneFixture f, NatsBroker nats) throws Exception {
        try (Connection watch = observer(f, nats)) {
            byte[] connz = watch.request("$SYS.REQ.ACCOUNT." + f.space.accountPublicKey() + ".CONNZ",
                    "{\"limit\":1024,\"auth\":true}".getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(5)).getData();
            List<Listed> listed = new ArrayList<>();
            for (JsonNode conn : new ObjectMapper().readTree(connz).path("data").path("connections")) {
                listed.add(new Listed(conn.path("name").asText(), conn.path("cid").asLong(),
                        conn.path("authorized_user").asText()));
            }
            return listed;
        }
    }

    /** The names of the space's connections the broker lists now. */
    static List<String> names(PlaneFixture f, NatsBroker nats) throws Exception {
        return connections(f, nats).stream().map(Listed::name).toList();
    }

    /** The broker's disconnect events of the space's connections from the moment this is made. */
    static final class Disconnects implements AutoCloseable {
        private final Connection watch;
        private final Subscription events;

        Disconnects(PlaneFixture f, NatsBroker nats) throws Exception {
            watch = observer(f, nats);
            events = watch.subscribe("$SYS.ACCOUNT." + f.space.accountPublicKey() + ".DISCONNECT");
            watch.flush(Duration.ofSeconds(5));
        }

        /** Waits for a disconnect event naming each of {@code names}; the names still awaited at {@code timeout}. */
        Set<String> await(Collection<String> names, Duration timeout) throws Exception {
            Set<String> awaited = new HashSet<>(names);
            long giveUp = System.nanoTime() + timeout.toNanos();
            while (!awaited.isEmpty()) {
                long left = giveUp - System.nanoTime();
                Message event = left <= 0 ? null : events.nextMessage(Duration.ofNanos(left));
                if (event == null) {
                    break;
                }
                awaited.remove(new ObjectMapper().readTree(event.getData()).path("client").path("name").asText());
            }
            return awaited;
        }

        @Override
        public void close() throws InterruptedException {
            watch.close();
        }
    }
}
