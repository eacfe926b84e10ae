package ai.cotal.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.Message;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Test inspection of the authority stores on a cluster, through each stream's leader (never a
 * direct get, which a lagging follower may answer): every message with its sequence, the last
 * sequence, and moving leaders off a member.
 */
final class StoreRows {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration ANSWER = Duration.ofSeconds(5);

    /** A stream as its leader holds it: the last sequence and every message by sequence. */
    record Snapshot(long lastSeq, Map<Long, String> rows) {
    }

    private StoreRows() {
    }

    /** Every stream's snapshot, read after each has a leader. */
    static Map<String, Snapshot> snapshot(Connection admin, List<String> streams) throws Exception {
        Map<String, Snapshot> out = new TreeMap<>();
        for (String stream : streams) {
            out.put(stream, snapshot(admin, stream));
        }
        return out;
    }

    private static Snapshot snapshot(Connection admin, String stream) throws Exception {
        long last = awaitInfo(admin, stream).path("state").path("last_seq").asLong();
        Map<Long, String> rows = new TreeMap<>();
        for (long seq = 1; seq <= last; ) {
            JsonNode answer = api(admin, "$JS.API.STREAM.MSG.GET." + stream, "{\"seq\":" + seq + ",\"next_by_subj\":\">\"}");
            if (answer.has("error")) {
                if (answer.path("error").path("err_code").asInt() == 10037) {
                    break; // no message at or after seq
                }
                throw new AssertionError(stream + " seq " + seq + ": " + answer);
            }
            JsonNode message = answer.path("message");
            rows.put(message.path("seq").asLong(), message.path("subject").asText() + " " + message.path("hdrs").asText("")
                    + " " + message.path("data").asText("") + " " + message.path("time").asText());
            seq = message.path("seq").asLong() + 1;
        }
        return new Snapshot(last, rows);
    }

    /** Steps every stream led by {@code member} down and waits until another member leads it. */
    static void moveLeadersOff(Connection admin, List<String> streams, String member, Duration timeout) throws Exception {
        for (String stream : streams) {
            if (member.equals(awaitInfo(admin, stream).path("cluster").path("leader").asText())) {
                api(admin, "$JS.API.STREAM.LEADER.STEPDOWN." + stream, "");
            }
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        for (String stream : streams) {
            while (member.equals(awaitInfo(admin, stream).path("cluster").path("leader").asText())) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(stream + " is still led by " + member + " after " + timeout);
                }
                Thread.sleep(50);
            }
        }
    }

    /** The {@code plane} row of the auth store, read at its leader. */
    static String planeRow(Connection admin) throws IOException, JetStreamApiException {
        return new String(admin.keyValue("cotal_auth_alpha").get("plane").getValue(), StandardCharsets.UTF_8);
    }

    /** The stream's info once it has a leader (polled: a stream electing one answers an error or nothing). */
    private static JsonNode awaitInfo(Connection admin, String stream) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            JsonNode info = api(admin, "$JS.API.STREAM.INFO." + stream, "");
            if (!info.has("error") && !info.path("cluster").path("leader").asText("").isEmpty()) {
                return info;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(stream + " has no leader: " + info);
            }
            Thread.sleep(50);
        }
    }

    private static JsonNode api(Connection admin, String subject, String body) throws Exception {
        Message reply = admin.request(subject, body.getBytes(StandardCharsets.UTF_8), ANSWER);
        if (reply == null || reply.isStatusMessage()) {
            com.fasterxml.jackson.databind.node.ObjectNode none = JSON.createObjectNode();
            none.putObject("error").put("description", "no answer");
            return none;
        }
        return JSON.readTree(reply.getData());
    }
}
