package ai.cotal.signer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The signer's frames (SPEC §16.1): round trip, bounds checked before a body is read, garbage. */
class SignerFramesTest {
    private static ReadableByteChannel of(byte[] bytes) {
        return Channels.newChannel(new ByteArrayInputStream(bytes));
    }

    private static byte[] bytes(ByteBuffer frame) {
        byte[] out = new byte[frame.remaining()];
        frame.get(out);
        return out;
    }

    @Test
    void aFrameRoundTripsAndACleanEndBetweenFramesIsNull() throws Exception {
        byte[] payload = "eyJ.eyJ".getBytes(StandardCharsets.US_ASCII);
        byte[] wire = bytes(SignerFrames.encode(SignerFrames.SIGN, 0x0102030405060708L, payload));
        assertEquals(4 + 10 + payload.length, wire.length);
        ReadableByteChannel in = of(wire);
        SignerFrames.Frame frame = SignerFrames.read(in, SignerFrames.MAX_REQUEST);
        assertEquals(SignerFrames.SIGN, frame.kind());
        assertEquals(0x0102030405060708L, frame.id());
        assertArrayEquals(payload, frame.payload());
        assertNull(SignerFrames.read(in, SignerFrames.MAX_REQUEST), "the peer closed between frames");
    }

    @Test
    void anOversizedOrUndersizedLengthIsRefusedBeforeAnyBodyIsRead() {
        for (int length : new int[] {0x7fffffff, -1, SignerFrames.MAX_REQUEST + 1, 9, 0}) {
            byte[] head = ByteBuffer.allocate(4).putInt(length).array(); // no body follows: none may be awaited
            SignerFrames.Violation v = assertThrows(SignerFrames.Violation.class,
                    () -> SignerFrames.read(of(head), SignerFrames.MAX_REQUEST), "length " + length);
            assertTrue(v.getMessage().startsWith("frame: a body of " + Integer.toUnsignedString(length) + " bytes"),
                    v.getMessage());
        }
        byte[] answer = bytes(SignerFrames.encode(SignerFrames.OK, 1, new byte[SignerFrames.MAX_ANSWER]));
        assertThrows(SignerFrames.Violation.class, () -> SignerFrames.read(of(answer), SignerFrames.MAX_ANSWER),
                "an answer bound is the answer's, not the request's");
    }

    @Test
    void garbageIsAViolationOrATruncatedStream() {
        byte[] text = "hello world, not a frame\n".getBytes(StandardCharsets.US_ASCII);
        assertThrows(SignerFrames.Violation.class, () -> SignerFrames.read(of(text), SignerFrames.MAX_REQUEST));
        byte[] wire = bytes(SignerFrames.encode(SignerFrames.SIGN, 7, new byte[] {'x'}));
        wire[4] = 9;
        SignerFrames.Violation version = assertThrows(SignerFrames.Violation.class,
                () -> SignerFrames.read(of(wire), SignerFrames.MAX_REQUEST));
        assertTrue(version.getMessage().contains("version 9"), version.getMessage());
        byte[] whole = bytes(SignerFrames.encode(SignerFrames.SIGN, 7, new byte[] {'x', 'y'}));
        byte[] cut = java.util.Arrays.copyOf(whole, whole.length - 1);
        assertThrows(EOFException.class, () -> SignerFrames.read(of(cut), SignerFrames.MAX_REQUEST));
    }

    @Test
    void reasonsArePrintableAndBounded() {
        byte[] reason = SignerFrames.reason("a\nb\u00e9" + "x".repeat(5000));
        assertEquals(SignerFrames.MAX_REASON, reason.length);
        assertTrue(new String(reason, StandardCharsets.US_ASCII).startsWith("a?b?x"));
    }
}
