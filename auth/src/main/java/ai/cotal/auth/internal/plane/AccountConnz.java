package ai.cotal.auth.internal.plane;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Subscription;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * One {@code $SYS.REQ.ACCOUNT.<dataAccount>.CONNZ} question to the whole broker, on a system
 * connection the caller owns (SPEC §13.13, §13.16): {@link #ask} publishes the first page's
 * request with a reply inbox, every server of the broker answers for its own connections of the
 * account, and {@link #next} hands the answers over one by one; {@link #readToEnd} then reads one
 * server's connections to their end, page by page, each page asked of that server alone and
 * overlapping the previous one. Not thread-safe (one reader); {@link #close()} leaves the inbox.
 */
public final class AccountConnz implements AutoCloseable {
    /** How long each further page may take. */
    public static final Duration PAGE_ANSWER = Duration.ofSeconds(2);
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One server's answer: its id and name, and the CONNZ page it gave ({@code data} is null when
     * it answered an error).
     */
    public record Answer(String serverId, String serverName, JsonNode data) {
    }

    private final Connection system;
    private final String dataAccount;
    private final int page;
    private final int overlap;
    private final int maxPages;
    private final Subscription replies;

    private AccountConnz(Connection system, String dataAccount, int page, int overlap, int maxPages,
            Subscription replies) {
        this.system = system;
        this.dataAccount = dataAccount;
        this.page = page;
        this.overlap = overlap;
        this.maxPages = maxPages;
        this.replies = replies;
    }

    /**
     * Publishes the first page's request ({@code auth}, {@code limit} = {@code page}, offset 0) to
     * every server. A page must be longer than its overlap, which is at least 1.
     */
    public static AccountConnz ask(Connection system, String dataAccount, int page, int overlap, int maxPages) {
        if (page <= overlap || overlap < 1 || maxPages < 1) {
            throw new IllegalArgumentException("a page must be longer than its overlap, which is at least 1");
        }
        String inbox = system.createInbox();
        Subscription replies = system.subscribe(inbox);
        AccountConnz connz = new AccountConnz(system, dataAccount, page, overlap, maxPages, replies);
        system.publish(connz.subject(), inbox, connz.request(0, null));
        return connz;
    }

    /**
     * The next server's answer within {@code wait}; null when none came in time or nobody
     * answers (a no-responders status). A reply that names no server is skipped.
     */
    public Answer next(Duration wait) throws InterruptedException {
        long until = System.nanoTime() + wait.toNanos();
        for (long left = wait.toNanos(); left > 0; left = until - System.nanoTime()) {
            Message reply = replies.nextMessage(Duration.ofNanos(left));
            if (reply == null || reply.isStatusMessage()) {
                return null;
            }
            Answer answer = parse(reply);
            if (answer != null) {
                return answer;
            }
        }
        return null;
    }

    /**
     * Reads the server that gave {@code first} to its end, handing every listed connection to
     * {@code each}; false when a page failed or did not parse, more connections closed between two
     * pages than they overlap (some may be unread), or the pages ran out.
     */
    public boolean readToEnd(Answer first, Consumer<JsonNode> each) throws InterruptedException {
        Answer answer = first;
        int offset = 0;
        long lastCid = -1;
        for (int n = 1; ; n++) {
            JsonNode connections = connections(answer);
            if (connections == null) {
                return false;
            }
            if (lastCid >= 0 && (connections.isEmpty() || connections.get(0).path("cid").asLong() > lastCid)) {
                return false;
            }
            connections.forEach(each);
            int listed = connections.size();
            if (listed < page || offset + listed >= answer.data().path("total").asLong()) {
                return true;
            }
            if (n >= maxPages) {
                return false;
            }
            lastCid = connections.get(listed - 1).path("cid").asLong();
            offset += listed - overlap;
            answer = nextPage(first, offset);
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
    private Answer nextPage(Answer first, int offset) throws InterruptedException {
        String inbox = system.createInbox();
        Subscription pageReplies;
        try {
            pageReplies = system.subscribe(inbox);
        } catch (RuntimeException e) { // the connection closed under the read: what was read is kept
            return null;
        }
        try {
            system.publish(subject(), inbox, request(offset, first.serverName()));
            long until = System.nanoTime() + PAGE_ANSWER.toNanos();
            for (long left = PAGE_ANSWER.toNanos(); left > 0; left = until - System.nanoTime()) {
                Message reply = pageReplies.nextMessage(Duration.ofNanos(left));
                Answer answer = reply == null ? null : parse(reply);
                if (answer != null && answer.serverId().equals(first.serverId())) {
                    return answer;
                }
            }
            return null;
        } catch (RuntimeException e) {
            return null;
        } finally {
            unsubscribe(pageReplies);
        }
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

    private static void unsubscribe(Subscription subscription) {
        try {
            subscription.unsubscribe();
        } catch (RuntimeException e) {
            // the connection is gone; nothing to release
        }
    }

    @Override
    public void close() {
        unsubscribe(replies);
    }
}
