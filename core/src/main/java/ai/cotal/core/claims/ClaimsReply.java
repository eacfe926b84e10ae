package ai.cotal.core.claims;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.json.ClosedJson;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * One server's answer to a {@code $SYS.REQ} request (claims, {@code JSZ}):
 * {@code {"server": {...}, "data": ...}} or {@code {"server": {...}, "error": {account, code,
 * description}}}. The top level is closed ({@code server}, {@code data}, {@code error} only); of
 * {@code server}, which grows with every nats-server release, only {@code id} (a server key) and
 * {@code name} (present; the id again when the server has no name) are read.
 */
record ClaimsReply(String serverId, String serverName, JsonNode data, String error) {
    private static final Set<String> TOP = Set.of("server", "data", "error");

    static ClaimsReply parse(byte[] body) {
        JsonNode root = ClosedJson.tree(ClosedJson.nats(), body, "reply");
        if (!root.isObject()) {
            throw protocol("reply is not an object");
        }
        root.fieldNames().forEachRemaining(name -> {
            if (!TOP.contains(name)) {
                throw protocol("reply." + ClosedJson.fieldName(name) + ": unknown field");
            }
        });
        JsonNode id = root.path("server").path("id");
        if (!id.isTextual() || !id.asText().startsWith("N")) {
            throw protocol("reply.server.id: missing or not a server key");
        }
        JsonNode name = root.path("server").path("name");
        if (!name.isTextual() || name.asText().isEmpty()) {
            throw protocol("reply.server.name: missing");
        }
        JsonNode error = root.get("error");
        if (error != null) {
            JsonNode description = error.get("description");
            return new ClaimsReply(id.asText(), name.asText(), null, description != null && description.isTextual()
                    ? description.asText() : "error " + error.path("code").asText("?"));
        }
        JsonNode data = root.get("data");
        if (data == null) {
            throw protocol("reply: neither data nor error");
        }
        return new ClaimsReply(id.asText(), name.asText(), data, null);
    }

    /** True when this is the {@code {code: 200, message: "jwt updated"}} answer of an update. */
    boolean updated() {
        return error == null && data.isObject() && data.path("code").asInt() == 200
                && "jwt updated".equals(data.path("message").asText());
    }

    /** The account list of a {@code CLAIMS.LIST} answer. */
    List<String> accounts() {
        if (error != null || !data.isArray()) {
            throw protocol("CLAIMS.LIST reply from " + serverId + " has no account list");
        }
        List<String> accounts = new ArrayList<>();
        data.forEach(node -> {
            if (!node.isTextual()) {
                throw protocol("CLAIMS.LIST reply: an entry is not a string");
            }
            accounts.add(node.asText());
        });
        return accounts;
    }

    /** The answers of several servers, by {@code key} (server id or name), in arrival order. */
    static Map<String, ClaimsReply> byServer(List<ClaimsReply> replies, Function<ClaimsReply, String> key) {
        Map<String, ClaimsReply> map = new java.util.LinkedHashMap<>();
        replies.forEach(reply -> map.putIfAbsent(key.apply(reply), reply));
        return map;
    }

    private static CotalException protocol(String message) {
        return new CotalException(ErrorCode.INTERNAL, "unexpected $SYS reply: " + message);
    }
}
