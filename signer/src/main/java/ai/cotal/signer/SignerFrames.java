package ai.cotal.signer;

import ai.cotal.core.internal.json.ClosedJson;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;

/**
 * The remote signer's frames (SPEC §16.1): a 4-byte big-endian length, then {@code version},
 * {@code kind}, an 8-byte {@code id} and the payload. Bounds are checked before a body is read,
 * so a peer can never make the other side allocate more than one maximal frame. Stateless.
 */
final class SignerFrames {
    static final byte VERSION = 1;
    static final byte DESCRIBE = 1;
    static final byte SIGN = 2;
    static final byte OK = 0;
    static final byte REFUSED = 1;
    static final byte MALFORMED = 2;
    static final byte UNAVAILABLE = 3;
    static final int HEADER = 10;
    static final int MAX_INPUT = 65_536;
    static final int MAX_REQUEST = HEADER + MAX_INPUT;
    static final int MAX_ANSWER = HEADER + 2_048;
    static final int MAX_REASON = 1_024;

    private SignerFrames() {
    }

    /** One frame as read: the body's parts. */
    record Frame(byte version, byte kind, long id, byte[] payload) {
    }

    /** A frame out of bounds: the stream cannot be resynchronized, so the connection ends. */
    static final class Violation extends IOException {
        private static final long serialVersionUID = 1L;

        Violation(String message) {
            super(message);
        }
    }

    /** The closed description a signer answers (SPEC §16.1). */
    record Description(Integer version, String space, String account, String signingKey) {
    }

    /** Encodes one frame. */
    static ByteBuffer encode(byte kind, long id, byte[] payload) {
        ByteBuffer frame = ByteBuffer.allocate(4 + HEADER + payload.length);
        frame.putInt(HEADER + payload.length).put(VERSION).put(kind).putLong(id).put(payload).flip();
        return frame;
    }

    /** Writes {@code frame} whole. */
    static void write(WritableByteChannel channel, ByteBuffer frame) throws IOException {
        while (frame.hasRemaining()) {
            channel.write(frame);
        }
    }

    /**
     * Reads one frame whose body is at most {@code maxBody} bytes; null when the peer closed the
     * stream between frames. A length out of bounds is a {@link Violation}, before any body byte.
     */
    static Frame read(ReadableByteChannel channel, int maxBody) throws IOException {
        ByteBuffer length = ByteBuffer.allocate(4);
        if (!fill(channel, length, true)) {
            return null;
        }
        int n = length.flip().getInt();
        if (n < HEADER || n > maxBody) {
            throw new Violation("frame: a body of " + Integer.toUnsignedString(n) + " bytes is outside " + HEADER + " to "
                    + maxBody);
        }
        ByteBuffer body = ByteBuffer.allocate(n);
        fill(channel, body, false);
        body.flip();
        byte version = body.get();
        byte kind = body.get();
        long id = body.getLong();
        byte[] payload = new byte[body.remaining()];
        body.get(payload);
        if (version != VERSION) {
            throw new Violation("frame: version " + version + " is not " + VERSION);
        }
        return new Frame(version, kind, id, payload);
    }

    private static boolean fill(ReadableByteChannel channel, ByteBuffer buffer, boolean mayEnd) throws IOException {
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) {
                if (mayEnd && buffer.position() == 0) {
                    return false;
                }
                throw new EOFException("frame: the stream ended inside a frame");
            }
        }
        return true;
    }

    /** A reason as an answer's payload: printable ASCII, at most {@link #MAX_REASON} bytes. */
    static byte[] reason(String text) {
        StringBuilder out = new StringBuilder();
        String message = text == null ? "" : text;
        for (int i = 0; i < message.length() && out.length() < MAX_REASON; i++) {
            char c = message.charAt(i);
            out.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return out.toString().getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] description(String space, String account, String signingKey) {
        return ClosedJson.write(ClosedJson.cotal(), new Description(1, space, account, signingKey));
    }

    static Description description(byte[] payload) {
        Description d = ClosedJson.read(ClosedJson.cotal(), payload, Description.class, "description");
        if (d.version() == null || d.version() != 1 || d.space() == null || d.account() == null || d.signingKey() == null) {
            throw ai.cotal.core.CotalException.badRequest("description", "not a version-1 signer description");
        }
        return d;
    }
}
