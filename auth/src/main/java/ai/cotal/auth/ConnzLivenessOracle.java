package ai.cotal.auth;

import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.workspace.SecretKeys;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Message;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The default {@link LivenessOracle}: asks the broker's {@code CONNZ} for the data account, page
 * by page, over a per-call connection with the space's membership-observer credential (read from
 * the {@link SecretStore} at {@code space.<hex>/membership-observer.creds}). A tuple is
 * {@code LIVE} when a connection with its client id and user key is listed, {@code GONE} when the
 * server that answered is the tuple's and the sweep completed without it. Anything else (no
 * credential, no answer, another server, a garbled page) is {@code UNKNOWN}. Never throws.
 */
public final class ConnzLivenessOracle implements LivenessOracle {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int PAGE = 1024;
    private static final int MAX_PAGES = 64;

    private final List<String> servers;
    private final String space;
    private final String dataAccount;
    private final SecretStore store;
    private final Duration timeout;

    public ConnzLivenessOracle(List<String> servers, String space, String dataAccount, SecretStore store, Duration timeout) {
        this.servers = List.copyOf(servers);
        this.space = Objects.requireNonNull(space, "space");
        this.dataAccount = Objects.requireNonNull(dataAccount, "dataAccount");
        this.store = Objects.requireNonNull(store, "store");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    @Override
    public Answer check(List<ConnTuple> tuples) {
        try {
            Creds creds = Creds.parse(store.getText(SecretKeys.membershipObserverCredsKey(space)).orElse(""));
            try (Connection connection = NatsConnector.builder().servers(servers).creds(creds)
                    .label("cotal:plane-oracle:" + space).timeout(timeout).build().connect()) {
                return sweep(connection, tuples);
            }
        } catch (Exception e) {
            return Answer.unknown(tuples);
        }
    }

    private Answer sweep(Connection connection, List<ConnTuple> tuples) throws Exception {
        Set<String> seen = new HashSet<>();
        String serverId = null;
        boolean complete = false;
        for (int page = 0; page < MAX_PAGES; page++) {
            String request = "{\"auth\":true,\"limit\":" + PAGE + ",\"offset\":" + page * PAGE + "}";
            Message reply = connection.request("$SYS.REQ.ACCOUNT." + dataAccount + ".CONNZ",
                    request.getBytes(StandardCharsets.UTF_8), timeout);
            if (reply == null) {
                return Answer.unknown(tuples);
            }
            JsonNode data = JSON.readTree(reply.getData()).path("data");
            String answering = data.path("server_id").asText("");
            if (answering.isEmpty() || (serverId != null && !serverId.equals(answering))) {
                return Answer.unknown(tuples);
            }
            serverId = answering;
            JsonNode connections = data.path("connections");
            if (!connections.isArray() || !data.path("total").isIntegralNumber()) {
                return Answer.unknown(tuples);
            }
            for (JsonNode conn : connections) {
                seen.add(conn.path("cid").asLong() + "/" + conn.path("authorized_user").asText(""));
            }
            if ((long) (page + 1) * PAGE >= data.path("total").asLong()) {
                complete = true;
                break;
            }
        }
        Map<ConnTuple, State> states = new HashMap<>();
        for (ConnTuple tuple : tuples) {
            if (seen.contains(tuple.cid() + "/" + tuple.userNkey())) {
                states.put(tuple, State.LIVE);
            } else if (complete && tuple.serverId().equals(serverId)) {
                states.put(tuple, State.GONE);
            } else {
                states.put(tuple, State.UNKNOWN);
            }
        }
        return new Answer(states, complete);
    }
}
