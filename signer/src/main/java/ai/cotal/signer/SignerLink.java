package ai.cotal.signer;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One client connection to a remote signer (SPEC §16.1): requests are written whole under one
 * lock; a reader thread completes each by its id. When the stream ends or breaks, every request
 * in flight fails {@code unavailable} and the link is dead for good. Thread-safe.
 */
final class SignerLink implements AutoCloseable {
    private final SocketChannel channel;
    private final String name;
    private final Map<Long, CompletableFuture<SignerFrames.Frame>> pending = new ConcurrentHashMap<>();
    private final Object writing = new Object();
    private volatile boolean alive = true;

    private SignerLink(SocketChannel channel, String name) {
        this.channel = channel;
        this.name = name;
        Thread reader = new Thread(this::read, "cotal-signer-client-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    /** Connects to {@code socket}; {@code unavailable} when nothing answers there. */
    static SignerLink open(Path socket, Duration timeout) {
        String name = String.valueOf(socket.getFileName());
        SocketChannel channel = null;
        try {
            channel = SocketChannel.open(StandardProtocolFamily.UNIX);
            channel.connect(UnixDomainSocketAddress.of(socket));
            return new SignerLink(channel, name);
        } catch (IOException e) {
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw new CotalException(ErrorCode.UNAVAILABLE, "signer: nothing answers at socket " + name + " ("
                    + e.getClass().getSimpleName() + ")", e);
        }
    }

    boolean alive() {
        return alive;
    }

    SignerDescription describe(long id, Duration timeout) {
        SignerFrames.Frame answer = request(SignerFrames.DESCRIBE, id, new byte[0], timeout);
        if (answer.kind() != SignerFrames.OK) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "signer: the description was refused");
        }
        SignerFrames.Description d = SignerFrames.description(answer.payload());
        return new SignerDescription(d.space(), d.account(), d.signingKey());
    }

    /** Sends one request and waits up to {@code timeout} for its answer. */
    SignerFrames.Frame request(byte kind, long id, byte[] payload, Duration timeout) {
        CompletableFuture<SignerFrames.Frame> answer = new CompletableFuture<>();
        pending.put(id, answer);
        try {
            if (!alive) {
                throw lost(null);
            }
            synchronized (writing) {
                SignerFrames.write(channel, SignerFrames.encode(kind, id, payload));
            }
            return answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (IOException e) {
            close();
            throw lost(e);
        } catch (TimeoutException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "signer: no answer from socket " + name + " within "
                    + timeout.toMillis() + " ms", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof CotalException c ? c : lost(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CotalException(ErrorCode.UNAVAILABLE, "signer: interrupted while waiting for an answer", e);
        } finally {
            pending.remove(id);
        }
    }

    private CotalException lost(Exception cause) {
        return new CotalException(ErrorCode.UNAVAILABLE, "signer: the connection to socket " + name + " was lost", cause);
    }

    private void read() {
        try {
            while (true) {
                SignerFrames.Frame frame = SignerFrames.read(channel, SignerFrames.MAX_ANSWER);
                if (frame == null) {
                    break;
                }
                CompletableFuture<SignerFrames.Frame> waiting = pending.get(frame.id());
                if (waiting != null) {
                    waiting.complete(frame);
                }
            }
        } catch (IOException e) {
            // the signer went away or broke the protocol: the requests in flight fail below
        }
        close();
    }

    @Override
    public void close() {
        alive = false;
        try {
            channel.close();
        } catch (IOException e) {
            // already closed
        }
        CotalException lost = lost(null);
        pending.values().forEach(f -> f.completeExceptionally(lost));
    }
}
