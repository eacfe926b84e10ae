package ai.cotal.signer;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.NatsClaim;
import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;

/**
 * One client connection of a {@link SignerServer} (SPEC §16.1): a reader thread takes frames in
 * order and hands sign requests to the server's signing pool, at most 64 at a time; answers are
 * written whole under one lock, in the order they are ready. A protocol violation is audited and
 * ends this connection only. Thread-safe.
 */
final class SignerConnection {
    static final int MAX_IN_FLIGHT = 64;

    private final SignerServer server;
    private final SocketChannel channel;
    private final String peer;
    private final Semaphore inFlight = new Semaphore(MAX_IN_FLIGHT);
    private final Object writing = new Object();
    private final Thread reader;

    SignerConnection(SignerServer server, SocketChannel channel, String peer, int number) {
        this.server = server;
        this.channel = channel;
        this.peer = peer;
        this.reader = new Thread(this::read, "cotal-signer-conn-" + number);
        this.reader.setDaemon(true);
    }

    void start() {
        reader.start();
    }

    private void read() {
        try {
            while (true) {
                SignerFrames.Frame frame = SignerFrames.read(channel, SignerFrames.MAX_REQUEST);
                if (frame == null) {
                    return;
                }
                if (frame.kind() == SignerFrames.DESCRIBE && frame.payload().length == 0) {
                    answer(frame.id(), SignerFrames.OK, server.descriptionBytes());
                } else if (frame.kind() == SignerFrames.SIGN && frame.payload().length > 0) {
                    inFlight.acquire();
                    try {
                        server.pool().execute(() -> sign(frame));
                    } catch (RejectedExecutionException e) {
                        inFlight.release();
                        return; // the server is closing
                    }
                } else {
                    throw new SignerFrames.Violation("frame: kind " + frame.kind() + " with a payload of "
                            + frame.payload().length + " bytes is not a request");
                }
            }
        } catch (SignerFrames.Violation e) {
            server.protocolViolation(e.getMessage(), peer);
        } catch (IOException e) {
            // the peer went away: nothing to answer
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            close();
        }
    }

    private void sign(SignerFrames.Frame frame) {
        try {
            String input = new String(frame.payload(), StandardCharsets.US_ASCII);
            java.time.Instant now = server.clock().instant();
            PolicyCheck.Verdict verdict = server.check().judge(input, now);
            long folded = 0;
            if (verdict.signed()) {
                int limit = server.policyBound(verdict.profile()).perPrincipalPerMinute();
                PrincipalRate.Decision rate = server.rate().admit(verdict.profile(), PrincipalRate.principal(verdict.claims()),
                        limit, now.toEpochMilli());
                if (!rate.admitted()) {
                    verdict = new PolicyCheck.Verdict(verdict.claims(), null, new CotalException(ErrorCode.PERMISSION_DENIED,
                            "rate: this principal had " + limit + " signatures of profile " + verdict.profile().label()
                                    + " in the last minute (limit " + limit + " per principal per minute)"));
                    if (!rate.record()) { // folded into the principal's next recorded refusal
                        answer(frame.id(), SignerFrames.REFUSED, SignerFrames.reason(verdict.refusal().getMessage()));
                        return;
                    }
                    folded = rate.folded();
                }
            }
            AuditLog.Entry entry = entry(verdict, sha256(frame.payload()), folded);
            if (verdict.signed()) {
                byte[] signature = server.signer().sign(frame.payload());
                server.audit().record(entry);
                answer(frame.id(), SignerFrames.OK, signature);
            } else {
                server.audit().record(entry);
                byte kind = verdict.refusal().code() == ErrorCode.BAD_REQUEST ? SignerFrames.MALFORMED : SignerFrames.REFUSED;
                answer(frame.id(), kind, SignerFrames.reason(verdict.refusal().getMessage()));
            }
        } catch (CotalException e) {
            answer(frame.id(), SignerFrames.UNAVAILABLE, SignerFrames.reason(e.getMessage()));
        } catch (RuntimeException e) {
            answer(frame.id(), SignerFrames.UNAVAILABLE, SignerFrames.reason("the signer failed on this request ("
                    + e.getClass().getSimpleName() + ")"));
        } finally {
            inFlight.release();
        }
    }

    private AuditLog.Entry entry(PolicyCheck.Verdict verdict, String input, long folded) {
        ClaimSet<NatsClaim> c = verdict.claims();
        String name = c == null || c.name() == null ? null : c.name().length() <= 128 ? c.name() : c.name().substring(0, 128);
        boolean signed = verdict.signed();
        return new AuditLog.Entry(null, null, signed ? "signed" : "refused",
                signed ? null : verdict.refusal().code().wire(), signed ? null : verdict.refusal().getMessage(),
                verdict.profile() == null ? null : verdict.profile().label(), c == null ? null : c.sub(), name,
                c == null ? null : c.iat(), c == null ? null : c.exp(), c == null ? null : c.jti(), "sha256:" + input, peer,
                null, null, null, null, folded == 0 ? null : folded);
    }

    private void answer(long id, byte kind, byte[] payload) {
        synchronized (writing) {
            try {
                SignerFrames.write(channel, SignerFrames.encode(kind, id, payload));
            } catch (IOException e) {
                close(); // the peer went away; its requests in flight fail on its side
            }
        }
    }

    void close() {
        try {
            channel.close();
        } catch (IOException e) {
            // already closed
        }
        server.closed(this);
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw CotalException.internal("SHA-256 unavailable", e);
        }
    }
}
