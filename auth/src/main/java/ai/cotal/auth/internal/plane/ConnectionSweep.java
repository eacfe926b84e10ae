package ai.cotal.auth.internal.plane;

import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.workspace.SecretKeys;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Subscription;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks the broker which of its live connections hold an endpoint key (SPEC §13.16): one
 * {@code $SYS.REQ.ACCOUNT.<dataAccount>.CONNZ} request with {@code auth}, on a short-lived system
 * connection with the space's membership-observer credential (read from the {@link SecretStore} at
 * each call). Every server answers for its own connections; a cluster's answers are taken for
 * {@link #SPREAD} after the first. A server with more than a page is read page by page, each page
 * overlapping the previous one. A connection holds the key when its {@code authorized_user} (the
 * callout-issued user's name, {@code <owner>-<actor>} and its endpoint keys) names it. Found
 * connections are kicked by the caller; this class only reads. Thread-safe (no state).
 */
final class ConnectionSweep {
    /** How long the first answer, and each further page, may take. */
    static final Duration ANSWER = Duration.ofSeconds(2);
    /** How long after the first answer a cluster's other servers' answers are taken. */
    static final Duration SPREAD = Duration.ofMillis(500);
    static final int PAGE = 1024;
    /** How many entries of the previous page the next one repeats (connections closing in between shift the rest). */
    static final int OVERLAP = 128;
    static final int MAX_PAGES = 64;
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionSweep.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What a sweep found; {@code complete} when the broker answered and every answering server was read to its end. */
    record Found(Set<ConnectionEvictor.Target> connections, boolean complete) {
        Found {
            connections = Set.copyOf(connections);
        }

        static Found nothing() {
            return new Found(Set.of(), false);
        }
    }

    /** One server's answer: its id and name, and the CONNZ page it gave (null when it answered an error). */
    private record Answer(String serverId, String serverName, JsonNode data) {
    }

    private final List<String> servers;
    private final String space;
    private final String dataAccount;
    private final SecretStore store;
    private final SSLContext ssl;
    private final int page;
    private final int overlap;
    private final int maxPages;

    ConnectionSweep(List<String> servers, String space, String dataAccount, SecretStore store, SSLContext ssl) {
        this(servers, space, dataAccount, store, ssl, PAGE, OVERLAP, MAX_PAGES);
    }

    /** A sweep with other page sizes (tests reach a server's later pages with a few connections). */
    ConnectionSweep(List<String> servers, String space, String dataAccount, SecretStore store, SSLContext ssl, int page,
            int overlap, int maxPages) {
        if (page <= overlap || overlap < 1 || maxPages < 1) {
            throw new IllegalArgumentException("a page must be longer than its overlap, which is at least 1");
        }
        this.servers = List.copyOf(servers);
        this.space = space;
        this.dataAccount = dataAccount;
        this.store = store;
        this.ssl = ssl;
        this.page = page;
        this.overlap = overlap;
        this.maxPages = maxPages;
    }

    /** The live connections of the data account whose name holds {@code key}. Never throws. */
    Found find(String key) {
        Optional<String> creds = store.getText(SecretKeys.membershipObserverCredsKey(space));
        if (creds.isEmpty()) {
            LOG.warn("auth-plane: space {}: cannot sweep the broker for live connections: the secret"
                    + " store holds no membership-observer credential", space);
            return Found.nothing();
        }
        try (Connection system = NatsConnector.builder().servers(servers).creds(Creds.parse(creds.get()))
                .label("cotal:plane-sweep:" + space).timeout(ANSWER).maxReconnects(0).sslContext(ssl).build().connect()) {
            Found found = sweep(system, key);
            if (!found.complete()) {
                LOG.warn("auth-plane: space {}: the broker sweep for live connections did not finish;"
                        + " connections it did not list end when their credential expires", space);
            }
            return found;
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            LOG.warn("auth-plane: space {}: cannot sweep the broker for live connections ({})", space,
                    e.getClass().getSimpleName());
            return Found.nothing();
        }
    }

    private Found sweep(Connection system, String key) throws InterruptedException {
        String cluster = system.getServerInfo() == null ? null : system.getServerInfo().getCluster();
        Map<String, Answer> answers = firstAnswers(system, cluster != null && !cluster.isEmpty());
        if (answers.isEmpty()) {
            return Found.nothing();
        }
        Set<ConnectionEvictor.Target> found = new LinkedHashSet<>();
        boolean complete = true;
        for (Answer answer : answers.values()) {
            complete &= readServer(system, answer, key, found);
        }
        return new Found(found, complete);
    }

    /** The first page of every server that answers: the first within {@link #ANSWER}, a cluster's others within {@link #SPREAD}. */
    private Map<String, Answer> firstAnswers(Connection system, boolean clustered) throws InterruptedException {
        Map<String, Answer> answers = new LinkedHashMap<>();
        String inbox = system.createInbox();
        Subscription replies = system.subscribe(inbox);
        try {
            system.publish(subject(), inbox, request(0, null));
            long until = System.nanoTime() + ANSWER.toNanos();
            while (true) {
                long left = until - System.nanoTime();
                Message reply = left > 0 ? replies.nextMessage(Duration.ofNanos(left)) : null;
                if (reply == null || (reply.isStatusMessage() && answers.isEmpty())) {
                    return answers; // nothing more within the window, or no server answers (no responders)
                }
                Answer answer = parse(reply);
                if (answer != null) {
                    if (answers.isEmpty()) {
                        if (!clustered) {
                            answers.put(answer.serverId(), answer);
                            return answers;
                        }
                        until = System.nanoTime() + SPREAD.toNanos();
                    }
                    answers.putIfAbsent(answer.serverId(), answer);
                }
            }
        } finally {
            replies.unsubscribe();
        }
    }

    /** Reads one server's connections to their end; false when a page failed, left a gap or the pages ran out. */
    private boolean readServer(Connection system, Answer first, String key, Set<ConnectionEvictor.Target> found)
            throws InterruptedException {
        Answer answer = first;
        int offset = 0;
        long lastCid = -1;
        for (int n = 1; ; n++) {
            JsonNode connections = connections(answer);
            if (connections == null) {
                return false;
            }
            if (lastCid >= 0 && (connections.isEmpty() || connections.get(0).path("cid").asLong() > lastCid)) {
                return false; // more connections closed between two pages than they overlap: some may be unread
            }
            for (JsonNode connection : connections) {
                if (holds(connection.path("authorized_user").asText(""), key)) {
                    found.add(new ConnectionEvictor.Target(first.serverId(), connection.path("cid").asLong()));
                }
            }
            int listed = connections.size();
            if (listed < page || offset + listed >= answer.data().path("total").asLong()) {
                return true;
            }
            if (n >= maxPages) {
                return false;
            }
            lastCid = connections.get(listed - 1).path("cid").asLong();
            offset += listed - overlap;
            answer = nextPage(system, first, offset);
        }
    }

    /**
     * The connections an answer lists, null when it is no page. A server that never loaded the
     * account answers {@code total: 0} with {@code connections: null}: an empty page.
     */
    private static JsonNode connections(Answer answer) {
        if (answer == null || answer.data() == null || !answer.data().path("total").isIntegralNumber()) {
            return null;
        }
        JsonNode connections = answer.data().path("connections");
        if (connections.isArray()) {
            return connections;
        }
        return connections.isNull() && answer.data().path("total").asLong() == 0 ? JSON.createArrayNode() : null;
    }

    /** The page at {@code offset} of the server that gave {@code first}, or null when it does not answer in time. */
    private Answer nextPage(Connection system, Answer first, int offset) throws InterruptedException {
        String inbox = system.createInbox();
        Subscription replies;
        try {
            replies = system.subscribe(inbox);
        } catch (RuntimeException e) { // the connection closed under the sweep: what was found is kept
            return null;
        }
        try {
            system.publish(subject(), inbox, request(offset, first.serverName()));
            long until = System.nanoTime() + ANSWER.toNanos();
            for (long left = ANSWER.toNanos(); left > 0; left = until - System.nanoTime()) {
                Message reply = replies.nextMessage(Duration.ofNanos(left));
                Answer answer = reply == null ? null : parse(reply);
                if (answer != null && answer.serverId().equals(first.serverId())) {
                    return answer;
                }
            }
            return null;
        } catch (RuntimeException e) {
            return null;
        } finally {
            try {
                replies.unsubscribe();
            } catch (RuntimeException e) {
                // the connection is gone; nothing to release
            }
        }
    }

    /** True when the user name holds {@code key} among its endpoint keys (the words after the first). */
    static boolean holds(String authorizedUser, String key) {
        String[] words = authorizedUser.split(" ");
        for (int i = 1; i < words.length; i++) {
            if (words[i].equals(key)) {
                return true;
            }
        }
        return false;
    }

    private String subject() {
        return "$SYS.REQ.ACCOUNT." + dataAccount + ".CONNZ";
    }

    private byte[] request(int offset, String serverName) {
        ObjectNode request = JSON.createObjectNode().put("auth", true).put("limit", page).put("offset", offset);
        if (serverName != null) {
            request.put("server_name", serverName).put("exact_match", true);
        }
        return request.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** A server's answer; null when it names no server. An answer carrying an error keeps no page. */
    private static Answer parse(Message reply) {
        try {
            JsonNode answer = JSON.readTree(reply.getData());
            String id = answer.path("server").path("id").asText("");
            if (id.isEmpty()) {
                return null;
            }
            JsonNode data = answer.path("error").isMissingNode() && answer.path("data").isObject() ? answer.path("data") : null;
            return new Answer(id, answer.path("server").path("name").asText(""), data);
        } catch (IOException e) {
            return null;
        }
    }
}
