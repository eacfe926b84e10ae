package ai.cotal.signer;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.keys.NKeyCodec;
import ai.cotal.core.keys.AccountSigner;
import ai.cotal.core.keys.KeyType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An {@link AccountSigner} whose key lives in a remote signer process (SPEC §16): each
 * {@link #sign} sends the JWT signing input over a Unix domain socket and returns the signature
 * the signer answers, or throws what it answers: {@code permission-denied} with the signer's
 * reason when its policy refuses, {@code bad-request} for input it cannot read, and
 * {@code unavailable} when the signer is down, loses the connection or does not answer within
 * the timeout. The key's public half is given at build ({@link #publicKey()} never asks the
 * signer) and checked against the signer's description on every new connection.
 *
 * <p>Thread-safe: one connection carries any number of requests in flight, matched by id. A lost
 * connection fails the requests it carried and is dropped; the next call connects again, so a
 * signer that restarts is used again without restarting its caller. {@code toString()} shows the
 * public key and the socket's file name. {@link #close()} ends the connection; later calls are
 * {@code unavailable}.
 */
public final class UnixSocketAccountSigner implements AccountSigner, AutoCloseable {
    /** How long a request waits for its answer unless the builder says otherwise. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

    private final Path socket;
    private final String publicKey;
    private final Duration timeout;
    private final AtomicLong ids = new AtomicLong();
    private final Object connecting = new Object();
    private volatile SignerLink link;
    private volatile boolean closed;

    private UnixSocketAccountSigner(Builder b) {
        this.socket = b.socket;
        this.publicKey = b.publicKey;
        this.timeout = b.timeout;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Asks the signer at {@code socket} what it is (one connection, closed after), so a caller can
     * build a client and its {@code SpaceSigner} without any key material. {@code unavailable} when
     * nothing answers within {@code timeout}.
     */
    public static SignerDescription describe(Path socket, Duration timeout) {
        Objects.requireNonNull(socket, "socket");
        Objects.requireNonNull(timeout, "timeout");
        try (SignerLink probe = SignerLink.open(socket, timeout)) {
            return probe.describe(0, timeout);
        }
    }

    @Override
    public String publicKey() {
        return publicKey;
    }

    @Override
    public byte[] sign(byte[] input) {
        Objects.requireNonNull(input, "input");
        if (input.length == 0 || input.length > SignerFrames.MAX_INPUT) {
            throw CotalException.badRequest("input", "a signing input is 1 to " + SignerFrames.MAX_INPUT + " bytes");
        }
        SignerLink current = link();
        SignerFrames.Frame answer = current.request(SignerFrames.SIGN, ids.incrementAndGet(), input, timeout);
        String reason = new String(answer.payload(), StandardCharsets.US_ASCII);
        return switch (answer.kind()) {
            case SignerFrames.OK -> {
                if (answer.payload().length != 64) {
                    current.close();
                    throw new CotalException(ErrorCode.UNAVAILABLE, "signer: answered " + answer.payload().length
                            + " bytes, not a 64-byte signature");
                }
                yield answer.payload();
            }
            case SignerFrames.REFUSED -> throw new CotalException(ErrorCode.PERMISSION_DENIED, "signer refused: " + reason);
            case SignerFrames.MALFORMED -> throw new CotalException(ErrorCode.BAD_REQUEST, "signer: " + reason);
            default -> throw new CotalException(ErrorCode.UNAVAILABLE, "signer: " + reason);
        };
    }

    /** The live connection, connecting (and checking the signer's key) when there is none. */
    private SignerLink link() {
        SignerLink current = link;
        if (current != null && current.alive()) {
            return current;
        }
        synchronized (connecting) {
            if (closed) {
                throw new CotalException(ErrorCode.UNAVAILABLE, "signer: this client is closed");
            }
            current = link;
            if (current != null && current.alive()) {
                return current;
            }
            SignerLink fresh = SignerLink.open(socket, timeout);
            try {
                SignerDescription description = fresh.describe(ids.incrementAndGet(), timeout);
                if (!publicKey.equals(description.signingKey())) {
                    throw new CotalException(ErrorCode.FAILED_PRECONDITION, "signer: the signer at " + socket.getFileName()
                            + " signs with " + description.signingKey() + ", not " + publicKey);
                }
            } catch (RuntimeException e) {
                fresh.close();
                throw e;
            }
            link = fresh;
            return fresh;
        }
    }

    @Override
    public void close() {
        synchronized (connecting) {
            closed = true;
            SignerLink current = link;
            if (current != null) {
                current.close();
            }
        }
    }

    @Override
    public String toString() {
        return "UnixSocketAccountSigner[" + publicKey + " at " + socket.getFileName() + "]";
    }

    /** Builder; {@link #build()} validates, naming the first bad option. Nothing connects until the first call. */
    public static final class Builder {
        private Path socket;
        private String publicKey;
        private Duration timeout = DEFAULT_TIMEOUT;

        private Builder() {
        }

        /** The signer's socket (at most 107 bytes as an absolute path). */
        public Builder socket(Path socket) {
            this.socket = socket;
            return this;
        }

        /** The signing key's public key ({@code A...}) the signer must sign with. */
        public Builder publicKey(String publicKey) {
            this.publicKey = publicKey;
            return this;
        }

        /** How long a request waits for its answer: 100 ms to 60 s (default 2 s). */
        public Builder timeout(Duration timeout) {
            this.timeout = timeout;
            return this;
        }

        public UnixSocketAccountSigner build() {
            if (socket == null) {
                throw CotalException.badRequest("socket", "required");
            }
            socket = socket.toAbsolutePath().normalize();
            if (socket.toString().getBytes(StandardCharsets.UTF_8).length > SignerServerOptions.MAX_SOCKET_PATH) {
                throw CotalException.badRequest("socket", "a Unix socket path holds at most "
                        + SignerServerOptions.MAX_SOCKET_PATH + " bytes");
            }
            if (publicKey == null || !NKeyCodec.isPublic(publicKey, KeyType.ACCOUNT)) {
                throw CotalException.badRequest("publicKey", "must be the signing key's public key (A...)");
            }
            if (timeout == null || timeout.compareTo(Duration.ofMillis(100)) < 0
                    || timeout.compareTo(Duration.ofSeconds(60)) > 0) {
                throw CotalException.badRequest("timeout", "must be 100 ms to 60 s");
            }
            return new UnixSocketAccountSigner(this);
        }
    }
}
