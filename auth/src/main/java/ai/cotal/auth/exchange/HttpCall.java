package ai.cotal.auth.exchange;

import ai.cotal.core.internal.json.ClosedJson;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * One request on a face and its one answer: {@link #send} answers at most once (a worker and a
 * deadline may race), and re-arms the connection's read deadline once the answer is out. The
 * body is read without holding a thread: chunks are taken as they arrive, up to a limit.
 */
final class HttpCall {
    /** The most a refusal made before the body reads and discards afterwards. */
    static final int DRAIN_LIMIT = 1024 * 1024;
    /** How long a refused connection may linger (draining, or waiting for the client's end) before it closes. */
    static final long LINGER_MILLIS = 1_000;
    private static final String JSON = "application/json";
    private final HttpFace face;
    private final Request request;
    private final Response response;
    private final Callback callback;
    private final AtomicBoolean sent = new AtomicBoolean();
    private final AtomicBoolean ended = new AtomicBoolean();
    private final long dispatched = System.nanoTime();

    HttpCall(HttpFace face, Request request, Response response, Callback callback) {
        this.face = face;
        this.request = request;
        this.response = response;
        this.callback = callback;
    }

    HttpFace face() {
        return face;
    }

    String method() {
        return request.getMethod();
    }

    /** The raw path (exact routes). */
    String path() {
        String path = request.getHttpURI().getPath();
        return path == null ? "" : path;
    }

    String header(String name) {
        return request.getHeaders().get(name);
    }

    List<String> headers(String name) {
        return request.getHeaders().getValuesList(name);
    }

    /** The direct peer's address. */
    InetAddress peer() {
        return ((InetSocketAddress) request.getConnectionMetaData().getRemoteSocketAddress()).getAddress();
    }

    /** The declared body length, or -1 when unknown (chunked). */
    long declaredLength() {
        return request.getLength();
    }

    /** A request without a body to read has arrived in full. */
    void arrived() {
        face.arrived(request);
    }

    /**
     * Reads the body as it arrives: {@code then} gets it in full (the read deadline stops), or
     * {@code tooLarge} runs once it passes {@code max} bytes (the rest is not read). A failed read
     * (the peer left, or the read deadline closed the connection) answers nothing.
     */
    void readBody(int max, Consumer<byte[]> then, Runnable tooLarge) {
        new BodyReader(max, then, tooLarge).run();
    }

    private final class BodyReader implements Runnable {
        private final int max;
        private final Consumer<byte[]> then;
        private final Runnable tooLarge;
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        BodyReader(int max, Consumer<byte[]> then, Runnable tooLarge) {
            this.max = max;
            this.then = then;
            this.tooLarge = tooLarge;
        }

        @Override
        public void run() {
            while (true) {
                Content.Chunk chunk = request.read();
                if (chunk == null) {
                    request.demand(this);
                    return;
                }
                if (Content.Chunk.isFailure(chunk)) {
                    // the peer left or the read deadline closed the connection: nothing to answer, and
                    // a timeout is logged quietly (one warning per slow client would flood the log)
                    quietly(chunk.getFailure());
                    return;
                }
                ByteBuffer buffer = chunk.getByteBuffer();
                int size = buffer.remaining();
                if (bytes.size() + size > max) {
                    chunk.release();
                    tooLarge.run();
                    return;
                }
                byte[] part = new byte[size];
                buffer.get(part);
                bytes.write(part, 0, size);
                boolean last = chunk.isLast();
                chunk.release();
                if (last) {
                    face.arrived(request);
                    then.accept(bytes.toByteArray());
                    return;
                }
            }
        }
    }

    /** Answers {@code body} as JSON; later calls do nothing. */
    void send(int status, Map<String, ?> body) {
        sendRaw(status, ClosedJson.write(ClosedJson.cotal(), body), false, null);
    }

    /**
     * Answers and closes the connection: for refusals made before the body was read. The answer
     * goes out first; a declared body of at most {@value #DRAIN_LIMIT} bytes is then read and
     * discarded, since closing on unread bytes resets the connection and a client still sending
     * would lose the answer. A larger or undeclared body is not read. Either way the connection
     * closes at most {@value #LINGER_MILLIS} ms after the answer.
     */
    void refuseUnread(int status, Map<String, ?> body) {
        long declared = request.getLength();
        send(status, JSON, ClosedJson.write(ClosedJson.cotal(), body), true, null, declared > 0 && declared <= DRAIN_LIMIT, 0);
    }

    /** Answers raw JSON bytes, with an optional {@code Cache-Control}; later calls do nothing. */
    void sendRaw(int status, byte[] body, boolean close, String cacheControl) {
        send(status, JSON, body, close, cacheControl, false, 0);
    }

    /**
     * Answers {@code body} as JSON with {@code Retry-After: <retryAfterSeconds>} when it is
     * positive (none otherwise); later calls do nothing.
     */
    void send(int status, Map<String, ?> body, long retryAfterSeconds) {
        send(status, JSON, ClosedJson.write(ClosedJson.cotal(), body), false, null, false, retryAfterSeconds);
    }

    /** {@link #sendRaw} with {@code Retry-After} when {@code retryAfterSeconds} is positive. */
    void sendRaw(int status, byte[] body, long retryAfterSeconds) {
        send(status, JSON, body, false, null, false, retryAfterSeconds);
    }

    /** Answers {@code body} as {@code contentType}; later calls do nothing. */
    void sendTyped(int status, String contentType, byte[] body) {
        send(status, contentType, body, false, null, false, 0);
    }

    /** Fails the request as a timeout: the peer left or the deadline cut it; Jetty logs that quietly. */
    private void quietly(Throwable failure) {
        end();
        java.util.concurrent.TimeoutException cut = new java.util.concurrent.TimeoutException("connection cut");
        cut.initCause(failure);
        callback.failed(cut);
    }

    /** The call is over, answered or failed: it leaves the face's in-flight count, once. */
    private void end() {
        if (ended.compareAndSet(false, true)) {
            face.ended();
        }
    }

    private void send(int status, String contentType, byte[] body, boolean close, String cacheControl, boolean drain,
            long retryAfterSeconds) {
        if (!sent.compareAndSet(false, true)) {
            return;
        }
        face.answered(path(), status, System.nanoTime() - dispatched);
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
        if (cacheControl != null) {
            response.getHeaders().put(HttpHeader.CACHE_CONTROL, cacheControl);
        }
        if (retryAfterSeconds > 0) {
            response.getHeaders().put(HttpHeader.RETRY_AFTER, Long.toString(retryAfterSeconds));
        }
        if (close) {
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
            // Jetty half-closes and waits for the client's end; a client still holding its end would
            // keep the slot for the idle timeout: the connection closes in full after a short linger
            face.schedule(request.getConnectionMetaData().getConnection().getEndPoint()::close, LINGER_MILLIS);
        }
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        Callback done = new Callback() {
            @Override
            public void succeeded() {
                if (!close) {
                    face.answered(request); // before the next request on the connection can be parsed
                }
                end();
                callback.succeeded();
            }

            @Override
            public void failed(Throwable failure) {
                quietly(failure);
            }
        };
        if (drain) { // the answer's bytes, then our half of the connection closes (the client sees the end),
            // then what the client still sends is discarded until it closes its half or the deadline
            response.write(false, ByteBuffer.wrap(body), Callback.from(() -> {
                request.getConnectionMetaData().getConnection().getEndPoint().shutdownOutput();
                Content.Source.consumeAll(request, Callback.from(() -> response.write(true, null, done), this::quietly));
            }, this::quietly));
            return;
        }
        response.write(true, ByteBuffer.wrap(body), done);
    }
}
