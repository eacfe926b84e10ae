package ai.cotal.core.stores;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.json.ClosedJson;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Subscription;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;

/**
 * One stream's backup and restore over the JetStream snapshot API, in the layout
 * {@code nats stream backup} writes: a directory holding {@code backup.json} ({@code {config,
 * state}} as the broker answered the snapshot request) and the snapshot data, the raw
 * concatenation of the chunks ({@code stream.arc.s2} from nats-server 2.15 on, {@code
 * stream.tar.s2} before). The broker's config and state are carried verbatim: they are its
 * documents, read here only for {@code state.messages} and {@code state.last_seq}.
 */
final class StreamBackup {
    static final String META = "backup.json";
    private static final ObjectMapper JSON = ClosedJson.nats();
    private static final Duration API_WAIT = Duration.ofSeconds(30);
    private static final Duration CHUNK_WAIT = Duration.ofSeconds(10);
    private static final int RESTORE_CHUNK = 64 * 1024;

    /** The backup's state: what the stream held when it was snapshotted. */
    record Counts(long messages, long lastSeq) {
    }

    private StreamBackup() {
    }

    /** Snapshots {@code stream} into {@code dir} (created 0700; must not exist). */
    static Counts backup(Connection connection, String stream, Path dir) {
        try {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            String inbox = connection.createInbox();
            Subscription chunks = connection.subscribe(inbox);
            chunks.setPendingLimits(-1, -1);
            try {
                ObjectNode request = JSON.createObjectNode().put("deliver_subject", inbox).put("no_consumers", false)
                        .put("chunk_size", 128 * 1024).put("jsck", false);
                JsonNode answer = api(connection, "$JS.API.STREAM.SNAPSHOT." + stream, JSON.writeValueAsBytes(request));
                Path data = dir.resolve(dataFileName(connection));
                try (OutputStream out = Files.newOutputStream(data, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                    receive(connection, chunks, out, stream);
                }
                ObjectNode meta = JSON.createObjectNode();
                meta.set("config", answer.get("config"));
                meta.set("state", answer.get("state"));
                Files.write(dir.resolve(META), JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(meta),
                        StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                return counts(meta, stream);
            } finally {
                chunks.unsubscribe();
            }
        } catch (IOException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "cannot back up " + stream + " into " + dir + " ("
                    + e.getClass().getSimpleName() + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CotalException(ErrorCode.UNAVAILABLE, "interrupted backing up " + stream, e);
        }
    }

    /** Reads the counts a backup directory recorded. */
    static Counts counts(Path dir) {
        try {
            return counts(JSON.readTree(Files.readAllBytes(dir.resolve(META))), dir.toString());
        } catch (IOException e) {
            throw new CotalException(ErrorCode.DATA_LOSS, dir.resolve(META) + " is unreadable", e);
        }
    }

    /** Restores the stream a backup directory holds; the stream must not exist. */
    static void restore(Connection connection, Path dir) {
        try {
            JsonNode meta = JSON.readTree(Files.readAllBytes(dir.resolve(META)));
            String stream = meta.path("config").path("name").asText("");
            if (stream.isEmpty() || !meta.path("state").isObject()) {
                throw new CotalException(ErrorCode.DATA_LOSS, dir.resolve(META) + " has no config.name or state");
            }
            Path data = dataFile(dir);
            ObjectNode request = JSON.createObjectNode();
            request.set("config", meta.get("config"));
            request.set("state", meta.get("state"));
            JsonNode answer = api(connection, "$JS.API.STREAM.RESTORE." + stream, JSON.writeValueAsBytes(request));
            String deliver = answer.path("deliver_subject").asText("");
            if (deliver.isEmpty()) {
                throw new CotalException(ErrorCode.INTERNAL, "restore of " + stream + ": no deliver_subject");
            }
            byte[] buffer = new byte[RESTORE_CHUNK];
            try (InputStream in = Files.newInputStream(data)) {
                int n;
                while ((n = in.readNBytes(buffer, 0, buffer.length)) > 0) {
                    byte[] chunk = n == buffer.length ? buffer : java.util.Arrays.copyOf(buffer, n);
                    Message reply = connection.request(deliver, chunk, API_WAIT);
                    if (reply == null || reply.getData().length > 0) {
                        throw failure("restore of " + stream + " refused a chunk", reply);
                    }
                }
            }
            JsonNode done = parse(connection.request(deliver, new byte[0], API_WAIT), "restore of " + stream);
            if (done.has("error")) {
                throw new CotalException(ErrorCode.FAILED_PRECONDITION, "restore of " + stream + " failed: "
                        + done.path("error").path("description").asText());
            }
        } catch (IOException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "cannot restore from " + dir + " (" + e.getClass().getSimpleName() + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CotalException(ErrorCode.UNAVAILABLE, "interrupted restoring from " + dir, e);
        }
    }

    private static void receive(Connection connection, Subscription chunks, OutputStream out, String stream)
            throws IOException, InterruptedException {
        {
            while (true) {
                Message chunk = chunks.nextMessage(CHUNK_WAIT);
                if (chunk == null) {
                    throw new CotalException(ErrorCode.DEADLINE_EXCEEDED, "snapshot of " + stream + " stalled");
                }
                byte[] data = chunk.getData();
                if (data == null || data.length == 0) {
                    if (chunk.isStatusMessage() && chunk.getStatus().getCode() != 204) {
                        throw new CotalException(ErrorCode.FAILED_PRECONDITION, "snapshot of " + stream + " failed: "
                                + chunk.getStatus().getCode() + " " + chunk.getStatus().getMessage());
                    }
                    return;
                }
                if (chunk.getReplyTo() != null && !chunk.getReplyTo().isEmpty()) {
                    connection.publish(chunk.getReplyTo(), new byte[0]); // flow control: ack on arrival
                }
                out.write(data);
            }
        }
    }

    private static JsonNode api(Connection connection, String subject, byte[] body) throws InterruptedException {
        JsonNode answer = parse(connection.request(subject, body, API_WAIT), subject);
        if (answer.has("error")) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, subject + " failed: "
                    + answer.path("error").path("description").asText() + " (" + answer.path("error").path("err_code").asText() + ")");
        }
        return answer;
    }

    private static JsonNode parse(Message reply, String what) {
        if (reply == null) {
            throw new CotalException(ErrorCode.DEADLINE_EXCEEDED, what + ": no answer");
        }
        try {
            return JSON.readTree(reply.getData());
        } catch (IOException e) {
            throw new CotalException(ErrorCode.INTERNAL, what + ": the answer is not JSON", e);
        }
    }

    private static CotalException failure(String what, Message reply) {
        String detail = reply == null ? "no answer" : new String(reply.getData(), StandardCharsets.UTF_8);
        return new CotalException(ErrorCode.FAILED_PRECONDITION, what + ": " + detail);
    }

    private static Counts counts(JsonNode meta, String what) {
        JsonNode state = meta.path("state");
        if (!state.path("messages").isIntegralNumber() || !state.path("last_seq").isIntegralNumber()) {
            throw new CotalException(ErrorCode.DATA_LOSS, what + ": backup state without messages/last_seq");
        }
        return new Counts(state.get("messages").asLong(), state.get("last_seq").asLong());
    }

    /** {@code stream.arc.s2} from nats-server 2.15 (NATSARC1 archive), {@code stream.tar.s2} before. */
    private static String dataFileName(Connection connection) {
        String[] parts = connection.getServerInfo().getVersion().split("[.-]");
        boolean arc = Integer.parseInt(parts[0]) > 2 || (Integer.parseInt(parts[0]) == 2 && Integer.parseInt(parts[1]) >= 15);
        return arc ? "stream.arc.s2" : "stream.tar.s2";
    }

    private static Path dataFile(Path dir) {
        Path arc = dir.resolve("stream.arc.s2");
        Path tar = dir.resolve("stream.tar.s2");
        if (Files.exists(arc) == Files.exists(tar)) {
            throw new CotalException(ErrorCode.DATA_LOSS, dir + " must hold exactly one of stream.arc.s2 and stream.tar.s2");
        }
        return Files.exists(arc) ? arc : tar;
    }
}
