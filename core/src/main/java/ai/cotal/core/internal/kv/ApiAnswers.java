package ai.cotal.core.internal.kv;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.Base64;

/**
 * The two JetStream API answers read on every service-endpoint invocation, each in one streaming
 * pass for what a reader uses: a key's last message ({@code STREAM.MSG.GET}: sequence, data,
 * headers, or the API error code) and a write's acknowledgement (its sequence). The rest is
 * skipped unread, the message's {@code time} above all: jnats' {@code MessageInfo} parses it into
 * a date no reader looks at. An answer of any other shape reads as null (or -1): the caller then
 * reads it with jnats' {@code MessageInfo} or {@code PublishAck}, as before. Stateless; thread-safe.
 */
public final class ApiAnswers {
    private static final JsonFactory JSON = new JsonFactory();

    private ApiAnswers() {
    }

    /**
     * A {@code STREAM.MSG.GET} answer.
     *
     * @param error true for an API error answer ({@code errorCode} is its {@code err_code}, 0 when absent)
     * @param headers the stored message's header block ({@code hdrs}, decoded), null when it has none
     * @param data the stored message's payload ({@code data}, decoded), null when it has none
     */
    public record Get(boolean error, int errorCode, long seq, byte[] data, byte[] headers) {
    }

    /** The {@code STREAM.MSG.GET} answer in {@code json}, or null when it is not the usual shape of one. */
    public static Get get(byte[] json) {
        if (json == null) {
            return null;
        }
        try (JsonParser p = JSON.createParser(json)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            Get message = null;
            Get error = null;
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (name.equals("message") && value == JsonToken.START_OBJECT) {
                    message = message(p);
                    if (message == null) {
                        return null;
                    }
                } else if (name.equals("error") && value == JsonToken.START_OBJECT) {
                    error = new Get(true, errorCode(p), 0, null, null);
                } else if (name.equals("message") || name.equals("error")) {
                    return null;
                } else {
                    p.skipChildren();
                }
            }
            if (t != JsonToken.END_OBJECT || p.nextToken() != null) {
                return null;
            }
            return error != null ? error : message; // an error answer is an error, whatever else it holds
        } catch (IOException | IllegalArgumentException e) {
            return null;
        }
    }

    /** The fields of {@code message}; null when a field a reader uses is not of its type. */
    private static Get message(JsonParser p) throws IOException {
        long seq = 0;
        byte[] data = null;
        byte[] headers = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            switch (name) {
                case "seq" -> {
                    if (value != JsonToken.VALUE_NUMBER_INT) {
                        return null;
                    }
                    seq = p.getLongValue();
                }
                case "data" -> {
                    if (value != JsonToken.VALUE_STRING) {
                        return null;
                    }
                    data = Base64.getDecoder().decode(p.getText());
                }
                case "hdrs" -> {
                    if (value != JsonToken.VALUE_STRING) {
                        return null;
                    }
                    headers = Base64.getDecoder().decode(p.getText());
                }
                default -> p.skipChildren();
            }
        }
        return new Get(false, 0, seq, data, headers);
    }

    private static int errorCode(JsonParser p) throws IOException {
        int code = 0;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            if (name.equals("err_code") && value == JsonToken.VALUE_NUMBER_INT) {
                code = p.getIntValue();
            } else {
                p.skipChildren();
            }
        }
        return code;
    }

    /**
     * The sequence a plain publish acknowledgement names ({@code {"stream": ..., "seq": n, ...}}
     * with no {@code error}), or -1 for any other answer.
     */
    public static long ackSequence(byte[] json) {
        if (json == null) {
            return -1;
        }
        try (JsonParser p = JSON.createParser(json)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return -1;
            }
            boolean stream = false;
            long seq = -1;
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (name.equals("error")) {
                    return -1;
                } else if (name.equals("stream")) {
                    stream = value == JsonToken.VALUE_STRING;
                } else if (name.equals("seq") && value == JsonToken.VALUE_NUMBER_INT) {
                    seq = p.getLongValue();
                } else if (name.equals("seq")) {
                    return -1;
                } else {
                    p.skipChildren();
                }
            }
            if (t != JsonToken.END_OBJECT || p.nextToken() != null) {
                return -1;
            }
            return stream && seq > 0 ? seq : -1;
        } catch (IOException | IllegalArgumentException e) {
            return -1;
        }
    }
}
