package ai.cotal.core.internal.json;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;

/**
 * The SDK's closed JSON mappers. Reading refuses unknown fields, duplicate keys, trailing tokens,
 * nulls for primitives, floats for integers and every scalar coercion (a number is never a
 * string, a string never a number or boolean). Writing omits nulls. Two naming styles:
 * {@link #nats()} (snake_case, the NATS JWT wire) and {@link #cotal()} (camelCase, the SDK's own
 * records). Both mappers are thread-safe.
 */
public final class ClosedJson {
    private static final java.util.regex.Pattern SHOWABLE_NAME = java.util.regex.Pattern.compile("[A-Za-z0-9_$-]{1,64}");
    /** A name shaped like a secret: an nkey seed or public key, a capability, a token (SPEC §2). */
    private static final java.util.regex.Pattern SECRET_SHAPED = java.util.regex.Pattern.compile("[A-Za-z0-9_-]{32,}");
    private static final String HIDDEN_NAME = "<name not shown>";

    private static final ObjectMapper NATS = build(true);
    private static final ObjectMapper COTAL = build(false);

    private ClosedJson() {
    }

    /** snake_case: NATS JWT claims and nats-server messages. */
    public static ObjectMapper nats() {
        return NATS;
    }

    /** camelCase: the SDK's own documents (records, policies, requests). */
    public static ObjectMapper cotal() {
        return COTAL;
    }

    private static ObjectMapper build(boolean snake) {
        JsonMapper.Builder builder = JsonMapper.builder()
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
                .defaultPropertyInclusion(JsonInclude.Value.construct(JsonInclude.Include.NON_NULL, JsonInclude.Include.NON_NULL));
        if (snake) {
            builder.propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);
        }
        ObjectMapper mapper = builder.build();
        for (LogicalType type : new LogicalType[] {LogicalType.Integer, LogicalType.Float, LogicalType.Boolean,
                LogicalType.Textual}) {
            mapper.coercionConfigFor(type)
                    .setCoercion(CoercionInputShape.String, type == LogicalType.Textual ? CoercionAction.TryConvert : CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Integer, type == LogicalType.Integer ? CoercionAction.TryConvert : CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Float, type == LogicalType.Float ? CoercionAction.TryConvert : CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Boolean, type == LogicalType.Boolean ? CoercionAction.TryConvert : CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.EmptyString, type == LogicalType.Textual ? CoercionAction.TryConvert : CoercionAction.Fail);
        }
        return mapper;
    }

    /**
     * Reads {@code bytes} as {@code type}; any refusal is {@code bad-request} naming {@code what}.
     * A JSON {@code null} document is refused too: a read never returns null.
     */
    public static <T> T read(ObjectMapper mapper, byte[] bytes, Class<T> type, String what) {
        T value;
        try {
            value = mapper.readValue(bytes, type);
        } catch (java.io.IOException | RuntimeException e) {
            throw refusal(what, e);
        }
        if (value == null) {
            throw CotalException.badRequest(what, "must be a JSON object, not null");
        }
        return value;
    }

    /** Converts a tree to {@code type}, closed; refusals name {@code what}; a null tree is refused. */
    public static <T> T convert(ObjectMapper mapper, JsonNode node, Class<T> type, String what) {
        T value;
        try {
            value = mapper.treeToValue(node, type);
        } catch (JsonProcessingException | RuntimeException e) {
            throw refusal(what, e);
        }
        if (value == null) {
            throw CotalException.badRequest(what, "must be a JSON object, not null");
        }
        return value;
    }

    /** Reads a JSON tree (closed against duplicates and trailing tokens). */
    public static JsonNode tree(ObjectMapper mapper, byte[] bytes, String what) {
        try {
            JsonNode node = mapper.readTree(bytes);
            if (node == null || node.isMissingNode()) {
                throw CotalException.badRequest(what, "empty JSON");
            }
            return node;
        } catch (java.io.IOException e) {
            throw refusal(what, e);
        }
    }

    /** Writes {@code value} as UTF-8 JSON bytes. */
    public static byte[] write(ObjectMapper mapper, Object value) {
        try {
            return mapper.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new CotalException(ErrorCode.INTERNAL, "cannot write " + value.getClass().getSimpleName() + " as JSON", e);
        }
    }

    /** Messages never quote the input: it may hold a secret. */
    private static CotalException refusal(String what, Exception e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof CotalException c) {
                return c;
            }
        }
        if (e instanceof UnrecognizedPropertyException u) {
            return CotalException.badRequest(what + pathOf(u), "unknown field");
        }
        if (e instanceof com.fasterxml.jackson.databind.JsonMappingException m && !m.getPath().isEmpty()) {
            return CotalException.badRequest(what + pathOf(m), "missing, of the wrong type, or invalid");
        }
        return CotalException.badRequest(what, "malformed JSON");
    }

    /**
     * A field name as a refusal may show it (SPEC §2): names of 1 to 64 of {@code [A-Za-z0-9_$-]}
     * as they are, unless shaped like a secret (32 or more characters, all of
     * {@code [A-Za-z0-9_-]}: an nkey seed or public key, a base32/base64url/hex capability or
     * token); any other name (an attacker's 64 KiB name, a secret pasted as a key, a newline) as
     * {@value #HIDDEN_NAME}, so a message never carries input a log should not. The same rule as
     * {@code ai.cotal.servicehost.HostJson.fieldName}.
     */
    public static String fieldName(String name) {
        return name != null && SHOWABLE_NAME.matcher(name).matches() && !SECRET_SHAPED.matcher(name).matches()
                ? name : HIDDEN_NAME;
    }

    /**
     * True when {@code text} is an ISO-8601 instant ({@link java.time.Instant#parse}) of at most 64
     * characters: the timestamp grammar of the closed rows the plane stores.
     */
    public static boolean isInstant(String text) {
        if (text == null || text.length() > 64) {
            return false;
        }
        try {
            java.time.Instant.parse(text);
            return true;
        } catch (java.time.format.DateTimeParseException e) {
            return false;
        }
    }

    private static String pathOf(com.fasterxml.jackson.databind.JsonMappingException e) {
        StringBuilder path = new StringBuilder();
        for (com.fasterxml.jackson.databind.JsonMappingException.Reference ref : e.getPath()) {
            if (ref.getFieldName() != null) {
                path.append('.').append(fieldName(ref.getFieldName()));
            } else if (ref.getIndex() >= 0) {
                path.append('[').append(ref.getIndex()).append(']');
            }
        }
        return path.toString();
    }
}
