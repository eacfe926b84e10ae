package ai.cotal.core.internal.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class ApiAnswersTest {
    private static final String TYPE = "\"type\":\"io.nats.jetstream.api.v1.stream_msg_get_response\"";

    private static byte[] json(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String b64(String text) {
        return Base64.getEncoder().encodeToString(json(text));
    }

    @Test
    void aStoredMessageReadsAsItsSequenceDataAndHeadersWithTheRestSkipped() {
        String hdrs = "NATS/1.0\r\nKV-Operation: DEL\r\n\r\n";
        ApiAnswers.Get get = ApiAnswers.get(json("{" + TYPE + ",\"message\":{\"subject\":\"$KV.b.k\",\"seq\":42,\"hdrs\":\""
                + b64(hdrs) + "\",\"data\":\"" + b64("{\"v\":1}") + "\",\"time\":\"2026-12-01T01:27:22.021345678Z\","
                + "\"extra\":{\"nested\":[1,2]}}}"));
        assertFalse(get.error());
        assertEquals(42, get.seq());
        assertArrayEquals(json("{\"v\":1}"), get.data());
        assertArrayEquals(json(hdrs), get.headers());
        ApiAnswers.Get bare = ApiAnswers.get(json("{\"message\":{\"seq\":7}}"));
        assertEquals(7, bare.seq());
        assertNull(bare.data(), "no data field: no data");
        assertNull(bare.headers(), "no hdrs field: no headers");
    }

    @Test
    void anErrorAnswerReadsAsItsApiCodeWhateverElseItHolds() {
        ApiAnswers.Get absent = ApiAnswers.get(json("{" + TYPE + ",\"error\":{\"code\":404,\"err_code\":10037,"
                + "\"description\":\"no message found\"}}"));
        assertTrue(absent.error());
        assertEquals(10037, absent.errorCode());
        ApiAnswers.Get both = ApiAnswers.get(json("{\"message\":{\"seq\":1},\"error\":{\"code\":500,\"err_code\":10001}}"));
        assertTrue(both.error(), "an error answer is an error");
        assertEquals(10001, both.errorCode());
        assertEquals(0, ApiAnswers.get(json("{\"error\":{\"code\":503}}")).errorCode(), "no err_code: 0");
    }

    @Test
    void anAnswerOfAnyOtherShapeIsLeftToJnats() {
        for (String other : new String[] {"", "[]", "null", "{", "{\"message\":\"x\"}", "{\"error\":1}",
                "{\"message\":{\"seq\":\"42\"}}", "{\"message\":{\"seq\":1.5}}", "{\"message\":{\"data\":7}}",
                "{\"message\":{\"data\":\"not base64!\"}}", "{\"message\":{\"seq\":1}} {}",
                "{\"message\":{\"seq\":99999999999999999999}}"}) {
            assertNull(ApiAnswers.get(json(other)), other);
        }
        assertNull(ApiAnswers.get(null));
    }

    @Test
    void aPlainAcknowledgementReadsAsItsSequenceAndAnythingElseAsMinusOne() {
        assertEquals(12, ApiAnswers.ackSequence(json("{\"stream\":\"KV_b\",\"seq\":12}")));
        assertEquals(13, ApiAnswers.ackSequence(json("{\"stream\":\"KV_b\",\"domain\":\"d\",\"seq\":13,\"duplicate\":true}")));
        for (String other : new String[] {"{\"error\":{\"code\":400,\"err_code\":10071,\"description\":\"wrong last sequence: 5\"}}",
                "{\"stream\":\"KV_b\",\"seq\":12,\"error\":{\"code\":400}}", "{\"seq\":12}", "{\"stream\":\"KV_b\"}",
                "{\"stream\":\"KV_b\",\"seq\":0}", "{\"stream\":7,\"seq\":12}", "{\"stream\":\"KV_b\",\"seq\":\"12\"}", "", "[]",
                "{\"stream\":\"KV_b\",\"seq\":12} x"}) {
            assertEquals(-1, ApiAnswers.ackSequence(json(other)), other);
        }
        assertEquals(-1, ApiAnswers.ackSequence(null));
    }
}
