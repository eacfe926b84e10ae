package ai.cotal.servicehost;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.type.LogicalType;
import java.io.IOException;
import java.util.Map;

/**
 * Closed JSON for the contract: unknown fields, duplicate keys, trailing tokens, wrong types, any
 * scalar coercion, floats for integers and integers beyond 2^53-1 are refused as
 * {@code bad-request} naming the field; messages never quote the input. Requests are
 * {@code {"kind": "...", ...fields}}. Thread-safe.
 */
public final class HostJson {
    private static final java.util.regex.Pattern SHOWABLE_NAME = java.util.regex.Pattern.compile("[A-Za-z0-9_$-]{1,64}");
    /** A name shaped like a secret: an nkey seed or public key, a capability, a token (SPEC §2). */
    private static final java.util.regex.Pattern SECRET_SHAPED = java.util.regex.Pattern.compile("[A-Za-z0-9_-]{32,}");
    private static final String HIDDEN_NAME = "<name not shown>";

    private static final ObjectMapper JSON = mapper();
    private static final Map<String, Class<? extends HostRequest>> KINDS = Map.ofEntries(
            Map.entry("register", HostRequest.Register.class), Map.entry("decide", HostRequest.Decide.class),
            Map.entry("revoke", HostRequest.Revoke.class), Map.entry("name-bind", HostRequest.NameBind.class),
            Map.entry("caller-grant", HostRequest.CallerGrant.class),
            Map.entry("caller-revoke", HostRequest.CallerRevoke.class),
            Map.entry("caller-read", HostRequest.CallerRead.class), Map.entry("caller-list", HostRequest.CallerList.class),
            Map.entry("instance-read", HostRequest.InstanceRead.class),
            Map.entry("instance-list", HostRequest.InstanceList.class),
            Map.entry("proposal-read", HostRequest.ProposalRead.class),
            Map.entry("operation-read", HostRequest.OperationRead.class), Map.entry("name-read", HostRequest.NameRead.class));

    private HostJson() {
    }

    private static ObjectMapper mapper() {
        ObjectMapper mapper = JsonMapper.builder()
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                .defaultPropertyInclusion(JsonInclude.Value.construct(JsonInclude.Include.NON_NULL, JsonInclude.Include.NON_NULL))
                .build();
        for (LogicalType type : new LogicalType[] {LogicalType.Integer, LogicalType.Float, LogicalType.Boolean,
                LogicalType.Textual, LogicalType.Enum}) {
            for (CoercionInputShape shape : new CoercionInputShape[] {CoercionInputShape.String, CoercionInputShape.Integer,
                    CoercionInputShape.Float, CoercionInputShape.Boolean, CoercionInputShape.EmptyString}) {
                boolean natural = (type == LogicalType.Integer && shape == CoercionInputShape.Integer)
                        || (type == LogicalType.Float && shape == CoercionInputShape.Float)
                        || (type == LogicalType.Boolean && shape == CoercionInputShape.Boolean)
                        || ((type == LogicalType.Textual || type == LogicalType.Enum) && shape == CoercionInputShape.String);
                mapper.coercionConfigFor(type).setCoercion(shape, natural ? CoercionAction.TryConvert : CoercionAction.Fail);
            }
        }
        return mapper;
    }

    /** Parses a request: {@code kind} selects the closed record. */
    public static HostRequest parseRequest(byte[] json) {
        JsonNode node = tree(json, "request");
        return parseRequest(node);
    }

    /** Parses a request from an already read tree (e.g. the {@code request} of a route body). */
    public static HostRequest parseRequest(JsonNode node) {
        if (!(node instanceof ObjectNode object)) {
            throw ContractException.badRequest("request", "must be an object");
        }
        JsonNode kind = object.get("kind");
        Class<? extends HostRequest> type = kind != null && kind.isTextual() ? KINDS.get(kind.asText()) : null;
        if (type == null) {
            throw ContractException.badRequest("request.kind", "unknown kind");
        }
        checkIntegers(object, "request");
        ObjectNode fields = object.deepCopy();
        fields.remove("kind");
        return convert(fields, type, "request");
    }

    /**
     * Writes a request with {@code kind} first: <code>{"kind":"&lt;kind&gt;"}</code> and then the record's own
     * fields, written once and spliced in (no tree is built: the host digests every request it
     * serves). A kind is a constant of lowercase letters and dashes, written as Jackson writes it.
     */
    public static byte[] writeRequest(HostRequest request) {
        byte[] fields = bytes(request); // {"requestId":...}: the record's fields in grammar order
        byte[] kind = ("{\"kind\":\"" + request.kind() + "\"").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        boolean empty = fields.length == 2;
        byte[] out = new byte[kind.length + (empty ? 1 : fields.length)];
        System.arraycopy(kind, 0, out, 0, kind.length);
        if (empty) {
            out[kind.length] = '}';
        } else {
            out[kind.length] = ',';
            System.arraycopy(fields, 1, out, kind.length + 1, fields.length - 1);
        }
        return out;
    }

    /**
     * Parses a result as a route answers it, closed like a request.
     *
     * @throws ContractException {@code bad-request} naming the malformed field
     */
    public static HostResult parseResult(byte[] json) {
        JsonNode node = tree(json, "result");
        checkIntegers(node, "result");
        return convert(node, HostResult.class, "result");
    }

    /** Writes a result as the routes answer it (absent fields omitted). */
    public static byte[] writeResult(HostResult result) {
        return bytes(result);
    }

    /** A closed JSON tree of {@code json} (duplicates, trailing tokens refused as {@code bad-request}). */
    public static JsonNode tree(byte[] json, String what) {
        try {
            JsonNode node = JSON.readTree(json);
            if (node == null || node.isMissingNode()) {
                throw ContractException.badRequest(what, "empty");
            }
            return node;
        } catch (IOException e) {
            throw ContractException.badRequest(what, "malformed JSON");
        }
    }

    /** {@code value} as JSON bytes. */
    public static byte[] bytes(Object value) {
        try {
            return JSON.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new ContractException("internal", "cannot write " + value.getClass().getSimpleName(), e);
        }
    }

    private static <T> T convert(JsonNode node, Class<T> type, String what) {
        try {
            return JSON.treeToValue(node, type);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof ContractException c) {
                    throw c;
                }
            }
            if (e instanceof UnrecognizedPropertyException u) {
                throw ContractException.badRequest(what + path(u), "unknown field");
            }
            if (e instanceof JsonMappingException m && !m.getPath().isEmpty()) {
                throw ContractException.badRequest(what + path(m), "missing, of the wrong type, or invalid");
            }
            throw ContractException.badRequest(what, "invalid");
        }
    }

    /** Refuses integers outside 0..2^53-1 anywhere in the tree (they would not survive a JavaScript peer). */
    private static void checkIntegers(JsonNode node, String path) {
        if (node.isIntegralNumber() && (!node.canConvertToLong() || node.asLong() < -Grammar.MAX_SAFE
                || node.asLong() > Grammar.MAX_SAFE)) {
            throw ContractException.badRequest(path, "integer beyond 2^53-1");
        }
        if (node.isFloatingPointNumber()) {
            throw ContractException.badRequest(path, "must be an integer");
        }
        node.properties().forEach(e -> checkIntegers(e.getValue(), path + "." + fieldName(e.getKey())));
        if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                checkIntegers(node.get(i), path + "[" + i + "]");
            }
        }
    }

    /**
     * A field name as a refusal may show it (SPEC §2): names of 1 to 64 of {@code [A-Za-z0-9_$-]}
     * as they are, unless shaped like a secret (32 or more characters, all of
     * {@code [A-Za-z0-9_-]}: an nkey seed or public key, a base32/base64url/hex capability or
     * token); any other name (an attacker's 64 KiB name, a secret pasted as a key, a newline) as
     * {@value #HIDDEN_NAME}, so a message never carries input a log should not. The same rule as
     * {@code ai.cotal.core.internal.json.ClosedJson.fieldName}.
     */
    public static String fieldName(String name) {
        return name != null && SHOWABLE_NAME.matcher(name).matches() && !SECRET_SHAPED.matcher(name).matches()
                ? name : HIDDEN_NAME;
    }

    private static String path(JsonMappingException e) {
        StringBuilder out = new StringBuilder();
        for (JsonMappingException.Reference ref : e.getPath()) {
            if (ref.getFieldName() != null) {
                out.append('.').append(fieldName(ref.getFieldName()));
            } else if (ref.getIndex() >= 0) {
                out.append('[').append(ref.getIndex()).append(']');
            }
        }
        return out.toString();
    }
}
