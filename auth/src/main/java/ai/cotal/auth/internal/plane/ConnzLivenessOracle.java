package ai.cotal.auth.internal.plane;

import ai.cotal.auth.ConnTuple;
import ai.cotal.auth.LivenessOracle;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.workspace.SecretKeys;
import io.nats.client.Connection;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The default {@link LivenessOracle} (SPEC §13.13): asks every server of the broker for the data
 * account's {@code CONNZ} at once, over a per-call connection with the space's
 * membership-observer credential (read from the {@link SecretStore} at
 * {@code space.<hex>/membership-observer.creds}), and takes the answers until each asked tuple's
 * server is accounted for or the timeout passes (on a single server: the first answer). A tuple's
 * own server is read to its end, page by page. A tuple is {@code LIVE} when a connection with its
 * client id and user key is listed; {@code GONE} when its own server was read to its end without
 * it, or when a server answered under its server name with another server id (the run that held
 * it ended: nats-server draws a new id at every start, and a scanner never reconnects);
 * {@code UNKNOWN} otherwise: no credential, no answer, a failed page, or its server silent. A
 * silent server is never taken as proof: a partitioned member looks like a dead one. Never throws;
 * thread-safe (no state between calls).
 */
public final class ConnzLivenessOracle implements LivenessOracle {
    private static final int PAGE = 1024;
    private static final int OVERLAP = 128;
    private static final int MAX_PAGES = 64;

    /**
     * What the sweep heard of one server: its id and name, whether it was read to its end, and the
     * {@code cid/userKey} pairs it listed.
     */
    record ServerRead(String serverId, String serverName, boolean readToEnd, Set<String> listed) {
        ServerRead {
            listed = Set.copyOf(listed);
        }
    }

    private final List<String> servers;
    private final String space;
    private final String dataAccount;
    private final SecretStore store;
    private final Duration timeout;

    /**
     * @param servers      the broker URLs
     * @param space        the space whose membership-observer credential is used
     * @param dataAccount  the space's data account (public key)
     * @param store        where the credential is read, at each check
     * @param timeout      the connect timeout, and how long answers are awaited
     */
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
            try (Connection connection = NatsConnector.builder().servers(servers).creds(creds).maxReconnects(0)
                    .label("cotal:plane-oracle:" + space).timeout(timeout).build().connect()) {
                return decide(tuples, sweep(connection, tuples));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Answer.unknown(tuples);
        } catch (Exception e) {
            return Answer.unknown(tuples);
        }
    }

    /** Every server heard within the timeout, each tuple's own server read to its end. */
    private Collection<ServerRead> sweep(Connection system, List<ConnTuple> tuples) throws InterruptedException {
        String cluster = system.getServerInfo() == null ? null : system.getServerInfo().getCluster();
        boolean clustered = cluster != null && !cluster.isEmpty();
        Map<String, AccountConnz.Answer> heard = new LinkedHashMap<>();
        List<ServerRead> reads = new java.util.ArrayList<>();
        try (AccountConnz connz = AccountConnz.ask(system, dataAccount, PAGE, OVERLAP, MAX_PAGES)) {
            long until = System.nanoTime() + timeout.toNanos();
            while (!accountedFor(tuples, heard.values())) {
                long left = until - System.nanoTime();
                AccountConnz.Answer answer = left > 0 ? connz.next(Duration.ofNanos(left)) : null;
                if (answer == null) {
                    break;
                }
                heard.putIfAbsent(answer.serverId(), answer);
                if (!clustered) {
                    break;
                }
            }
            for (AccountConnz.Answer answer : heard.values()) {
                Set<String> listed = new HashSet<>();
                boolean own = tuples.stream().anyMatch(t -> t.serverId().equals(answer.serverId()));
                boolean complete = own ? connz.readToEnd(answer, c -> listed.add(key(c.path("cid").asLong(),
                        c.path("authorized_user").asText("")))) : firstPage(answer, listed);
                reads.add(new ServerRead(answer.serverId(), answer.serverName(), complete, listed));
            }
        }
        return reads;
    }

    /** Lists another server's first page (no proof comes from it, only a sighting); false: not read to its end. */
    private static boolean firstPage(AccountConnz.Answer answer, Set<String> listed) {
        if (answer.data() != null && answer.data().path("connections").isArray()) {
            answer.data().path("connections").forEach(c -> listed.add(key(c.path("cid").asLong(),
                    c.path("authorized_user").asText(""))));
        }
        return false;
    }

    /** True when every tuple's own server answered, or a server answered under its name with another id. */
    private static boolean accountedFor(List<ConnTuple> tuples, Collection<AccountConnz.Answer> heard) {
        return tuples.stream().allMatch(t -> heard.stream().anyMatch(a -> a.serverId().equals(t.serverId())
                || a.serverName().equals(t.serverName())));
    }

    /**
     * The states of SPEC §13.13 from what was heard: {@code LIVE} when listed; {@code GONE} when its
     * own server was read to its end without it, or its name answered under another id;
     * {@code UNKNOWN} otherwise. The sweep is complete when every tuple was proved one way or the
     * other from its own server or its name.
     */
    static Answer decide(List<ConnTuple> tuples, Collection<ServerRead> heard) {
        Map<ConnTuple, State> states = new HashMap<>();
        boolean complete = true;
        for (ConnTuple tuple : tuples) {
            boolean ownRead = heard.stream().anyMatch(r -> r.serverId().equals(tuple.serverId()) && r.readToEnd());
            boolean restarted = heard.stream().anyMatch(r -> r.serverName().equals(tuple.serverName())
                    && !r.serverId().equals(tuple.serverId()));
            complete &= ownRead || restarted;
            if (heard.stream().anyMatch(r -> r.listed().contains(key(tuple.cid(), tuple.userNkey())))) {
                states.put(tuple, State.LIVE);
            } else if (ownRead || restarted) {
                states.put(tuple, State.GONE);
            } else {
                states.put(tuple, State.UNKNOWN);
            }
        }
        return new Answer(states, complete);
    }

    private static String key(long cid, String user) {
        return cid + "/" + user;
    }
}
