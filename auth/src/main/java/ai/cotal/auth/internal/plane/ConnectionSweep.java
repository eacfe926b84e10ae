package ai.cotal.auth.internal.plane;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.workspace.SecretKeys;
import io.nats.client.Connection;
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
    /** How long the first answer may take (each further page: {@link AccountConnz#PAGE_ANSWER}). */
    static final Duration ANSWER = Duration.ofSeconds(2);
    /** How long after the first answer a cluster's other servers' answers are taken. */
    static final Duration SPREAD = Duration.ofMillis(500);
    static final int PAGE = 1024;
    /** How many entries of the previous page the next one repeats (connections closing in between shift the rest). */
    static final int OVERLAP = 128;
    static final int MAX_PAGES = 64;
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionSweep.class);

    /** What a sweep found; {@code complete} when the broker answered and every answering server was read to its end. */
    record Found(Set<ConnectionEvictor.Target> connections, boolean complete) {
        Found {
            connections = Set.copyOf(connections);
        }

        static Found nothing() {
            return new Found(Set.of(), false);
        }
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

    /**
     * The open's check of the space's membership-observer credential (SPEC §13.12): absent is
     * allowed (a sweep then answers {@code swept: false}); present, it must read as a credential
     * whose user may ask {@code $SYS.REQ.ACCOUNT.<dataAccount>.CONNZ}, else {@code failed-precondition}
     * naming the secret store key (never its contents): a credential of another account would
     * sweep, and judge liveness on, another space's connections.
     */
    static void requireObserverOf(SecretStore store, String space, String dataAccount) {
        String key = SecretKeys.membershipObserverCredsKey(space);
        Optional<String> text = store.getText(key);
        if (text.isEmpty()) {
            return;
        }
        String connz = "$SYS.REQ.ACCOUNT." + dataAccount + ".CONNZ";
        boolean observes;
        try {
            UserClaim user = NatsJwt.decode(Creds.parse(text.get()).jwt(), UserClaim.class).nats();
            observes = user.pub() != null && user.pub().allow() != null && user.pub().allow().contains(connz);
        } catch (CotalException e) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "secretStore: " + key
                    + " is not a readable user credential (" + e.code().wire() + ")");
        }
        if (!observes) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "secretStore: " + key + " observes another account:"
                    + " it may not ask " + connz + " (the space's data account); mint it for that account");
        }
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
        try (AccountConnz connz = AccountConnz.ask(system, dataAccount, page, overlap, maxPages)) {
            List<AccountConnz.Answer> answers = firstAnswers(connz, cluster != null && !cluster.isEmpty());
            if (answers.isEmpty()) {
                return Found.nothing();
            }
            Set<ConnectionEvictor.Target> found = new LinkedHashSet<>();
            boolean complete = true;
            for (AccountConnz.Answer answer : answers) {
                complete &= connz.readToEnd(answer, connection -> {
                    if (holds(connection.path("authorized_user").asText(""), key)) {
                        found.add(new ConnectionEvictor.Target(answer.serverId(), connection.path("cid").asLong()));
                    }
                });
            }
            return new Found(found, complete);
        }
    }

    /** The first page of every server that answers: the first within {@link #ANSWER}, a cluster's others within {@link #SPREAD}. */
    private static List<AccountConnz.Answer> firstAnswers(AccountConnz connz, boolean clustered) throws InterruptedException {
        Map<String, AccountConnz.Answer> answers = new LinkedHashMap<>();
        AccountConnz.Answer first = connz.next(ANSWER);
        if (first == null) {
            return List.of();
        }
        answers.put(first.serverId(), first);
        if (clustered) {
            long until = System.nanoTime() + SPREAD.toNanos();
            for (long left = SPREAD.toNanos(); left > 0; left = until - System.nanoTime()) {
                AccountConnz.Answer answer = connz.next(Duration.ofNanos(left));
                if (answer == null) {
                    break;
                }
                answers.putIfAbsent(answer.serverId(), answer);
            }
        }
        return List.copyOf(answers.values());
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
}
