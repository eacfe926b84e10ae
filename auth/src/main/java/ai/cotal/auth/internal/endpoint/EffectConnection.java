package ai.cotal.auth.internal.endpoint;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.internal.connect.ConnectionEvents;
import ai.cotal.core.internal.connect.SelfSignedCredential;
import ai.cotal.core.internal.kv.ApiAnswers;
import ai.cotal.core.internal.kv.LeaderGet;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.jwt.Permission;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.keys.NKeyPair;
import ai.cotal.core.trust.SpaceSigner;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.Message;
import io.nats.client.NUID;
import io.nats.client.Subscription;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.net.ssl.SSLContext;

/**
 * One invocation's effect registry connection (SPEC §13.1 step e): a user JWT that may publish only
 * {@code $KV.<bucket>.<key>} for the keys in scope and subscribe only its inbox, with
 * {@code exp = ceil(deadline_ms / 1000)}. It never renews or reconnects: once it is lost the
 * invocation is fenced and no later step writes. Its writes run one at a time, each awaiting its
 * JetStream acknowledgement on one inbox subscription of its own (the reader hands the ack to the
 * writing thread directly, with no reply dispatcher in between). Thread-safe.
 */
public final class EffectConnection implements AutoCloseable {
    private static final int WRONG_LAST_SEQUENCE = 10071;
    /** The status the broker sends to a publish's reply subject when nothing subscribes to the published subject. */
    private static final int NO_RESPONDERS = 503;
    /** The JetStream publish header of a compare-and-set (0: no message at all on the subject). */
    private static final String EXPECTED_LAST_SUBJECT_SEQUENCE = "Nats-Expected-Last-Subject-Sequence";
    /** Records are small (a few hundred bytes): a short-lived connection needs no 64 KiB buffers. */
    private static final int BUFFER = 8 * 1024;

    /** The connection is gone (closed by the broker, expired or kicked): the invocation is fenced. */
    static final class Lost extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Lost(String why) {
            super(why, null, false, false);
        }
    }

    private final Connection connection;
    /** Where this connection's write acknowledgements arrive, one write at a time. */
    private final Subscription acks;
    private final String ackInbox;
    /** How long a write waits for its acknowledgement: the invocation's time left when the connection opened. */
    private final Duration ackWait;
    private final String bucket;
    private final Set<String> scope;
    private final long exp;
    private volatile String lost;
    private final java.util.concurrent.CompletableFuture<String> gone = new java.util.concurrent.CompletableFuture<>();

    private EffectConnection(Connection connection, Subscription acks, String ackInbox, Duration ackWait, String bucket,
            Set<String> scope, long exp) {
        this.connection = connection;
        this.acks = acks;
        this.ackInbox = ackInbox;
        this.ackWait = ackWait;
        this.bucket = bucket;
        this.scope = scope;
        this.exp = exp;
    }

    /** {@code ceil(deadline_ms / 1000)}: the JWT never outlives the invocation's original deadline. */
    static long expiry(Instant deadline) {
        return Math.floorDiv(deadline.toEpochMilli() + 999, 1000);
    }

    /**
     * Where and as whom effect connections open: the servers and TLS context, the space's signer,
     * the auth bucket, and {@code identity}, the user key they prove (an engine's own: every
     * invocation gets its own JWT and connection; the key only proves possession).
     */
    public record Dial(List<String> servers, SpaceSigner signer, SSLContext ssl, String bucket, NKeyPair identity) {
    }

    /** The user JWT for {@code scope}: publish exactly the scoped keys, subscribe the inbox. */
    public static String credential(Dial dial, Set<String> scope, Instant now, Instant deadline) {
        List<String> publish = new ArrayList<>();
        for (String key : new TreeSet<>(scope)) {
            publish.add("$KV." + dial.bucket() + "." + key);
        }
        publish.add("$KV." + dial.bucket() + ".plane.witness.*"); // its fenced writes' witness rows (SPEC §13.13)
        NKeyPair identity = dial.identity();
        SpaceSigner signer = dial.signer();
        UserClaim body = UserClaim.of(Permission.allow(publish),
                Permission.allow(List.of("_INBOX_" + identity.publicKey() + ".>")), signer.accountPublicKey(), null);
        return NatsJwt.encode(ClaimSet.of(identity.publicKey(), "cotal:ep-effect:" + signer.space(), body, now)
                .withExp(expiry(deadline)), signer.signing());
    }

    /**
     * Thread pools shared by every effect connection of one engine: a connection's reader, writer
     * and timers run on them instead of threads created per connection. Closed with the engine.
     */
    record Pools(java.util.concurrent.ExecutorService executor, java.util.concurrent.ScheduledExecutorService timers)
            implements AutoCloseable {
        static Pools create(String space) {
            java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
            java.util.concurrent.ThreadFactory threads = r -> {
                Thread t = new Thread(r, "cotal-ep-effect-" + space + "-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            };
            java.util.concurrent.ScheduledThreadPoolExecutor timers = new java.util.concurrent.ScheduledThreadPoolExecutor(1,
                    threads);
            timers.setRemoveOnCancelPolicy(true);
            return new Pools(java.util.concurrent.Executors.newCachedThreadPool(threads), timers);
        }

        @Override
        public void close() {
            executor.shutdownNow();
            timers.shutdownNow();
        }
    }

    /**
     * The effect connection's control-line limit: room for its CONNECT (its JWT, the nonce's
     * signature and about 300 bytes of other fields) with 1 KiB to spare, at least jnats' 4096,
     * never above the broker's. The only lines it receives are acknowledgements on its own inbox
     * (an INFO or an error has a buffer that grows), so the 64 KiB every other connection keeps
     * (about 320 KiB allocated per connect) would be spent on every invocation for nothing.
     */
    static int controlLine(String jwt) {
        return Math.min(ai.cotal.core.config.ServerConfig.MAX_CONTROL_LINE,
                Math.max(NatsConnector.MIN_CONTROL_LINE, jwt.length() + 1024));
    }

    /** Opens an effect connection for {@code scope} on {@code pools} (null: the client's own threads). */
    static EffectConnection open(Dial dial, Pools pools, Set<String> scope, Instant now, Instant deadline) {
        String jwt = credential(dial, scope, now, deadline);
        NKeyPair identity = dial.identity();
        Duration remaining = Duration.between(now, deadline);
        if (remaining.toMillis() < 1) {
            throw new Lost("the invocation's deadline passed before its effect connection opened");
        }
        Holder holder = new Holder();
        NatsConnector.Builder connector = NatsConnector.builder().servers(dial.servers())
                .selfSigned(new SelfSignedCredential(identity, () -> jwt)).label("cotal:ep-effect:" + dial.signer().space())
                .connectionListener(holder).bufferSize(BUFFER).controlLine(controlLine(jwt)).reconnectBufferSize(0)
                .timeout(remaining.compareTo(Duration.ofSeconds(5)) < 0 ? remaining : Duration.ofSeconds(5)).sslContext(dial.ssl());
        if (pools != null) {
            connector.executors(pools.executor(), pools.timers());
        }
        Connection connection;
        try {
            connection = connector.build().connect();
        } catch (CotalException e) { // the invocation is fenced: it writes nothing without its connection
            throw new Lost("the effect connection could not open (" + e.getMessage() + ")");
        }
        String ackInbox = "_INBOX_" + identity.publicKey() + "." + NUID.nextGlobal();
        Subscription acks;
        try {
            acks = connection.subscribe(ackInbox);
        } catch (RuntimeException e) { // closed meanwhile
            closeQuietly(connection);
            throw new Lost("the effect connection closed before it could take acknowledgements");
        }
        EffectConnection effect = new EffectConnection(connection, acks, ackInbox, remaining, dial.bucket(), Set.copyOf(scope),
                expiry(deadline));
        holder.owner = effect;
        if (connection.getStatus() != Connection.Status.CONNECTED) {
            effect.lost = "the effect connection was lost while opening";
        }
        return effect;
    }

    Set<String> scope() {
        return scope;
    }

    long exp() {
        return exp;
    }

    /** Completes when the connection is lost (disconnected or closed, by the broker or by us). */
    java.util.concurrent.CompletableFuture<String> gone() {
        return gone;
    }

    Connection connection() {
        return connection;
    }

    boolean lost() {
        return lost != null || connection.getStatus() != Connection.Status.CONNECTED;
    }

    /**
     * Publishes {@code data} on {@code key} when its last subject sequence is {@code expected}
     * ({@code 0}: no message at all). Empty when the key moved. Throws {@link Lost} when the
     * connection is gone or the outcome cannot be known; the caller must then write nothing more.
     * Throws {@code unavailable} when the store took no write (no leader to take it, SPEC §13.1);
     * any other refusal is {@code failed-precondition}.
     */
    java.util.Optional<Long> publish(String key, byte[] data, long expected) {
        if (lost()) {
            throw new Lost(lost == null ? "the effect connection is gone" : lost);
        }
        Message reply;
        try {
            connection.publish("$KV." + bucket + "." + key, ackInbox,
                    new Headers().put(EXPECTED_LAST_SUBJECT_SEQUENCE, Long.toString(expected)), data);
            reply = acks.nextMessage(ackWait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unknown("interrupted");
        } catch (IllegalStateException e) { // the connection closed under the write
            throw unknown(e.getMessage());
        }
        if (reply != null && reply.isStatusMessage() && reply.getStatus().getCode() == NO_RESPONDERS) {
            throw notTaken(key, "no member holds the store's leadership now");
        }
        if (reply == null || reply.isStatusMessage()) {
            throw unknown(reply == null ? "no acknowledgement in time" : "status " + reply.getStatus().getCode());
        }
        long seq = ApiAnswers.ackSequence(reply.getData());
        if (seq > 0) {
            return java.util.Optional.of(seq);
        }
        try { // a refusal, or an acknowledgement of another shape: jnats reads it
            return java.util.Optional.of(new PublishAck(reply).getSeqno());
        } catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == WRONG_LAST_SEQUENCE) {
                return java.util.Optional.empty();
            }
            if (LeaderGet.unavailable(e)) {
                throw notTaken(key, e.getApiErrorCode() + " " + e.getErrorDescription());
            }
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "service endpoints: the broker refused a write to "
                    + key + " (" + e.getApiErrorCode() + ")", e);
        } catch (IOException e) {
            throw unknown(e.getMessage());
        }
    }

    /**
     * A write the store did not take (SPEC §13.1, the loss of a store leader): no stream leader
     * received it (no responders) or the stream answered that it cannot take writes now. Its
     * outcome is known, nothing was written, and the connection stays usable.
     */
    private static CotalException notTaken(String key, String why) {
        return new CotalException(ErrorCode.UNAVAILABLE, "service endpoints: the auth store took no write to " + key
                + " (" + why + "); nothing was written by it");
    }

    /** A write whose outcome cannot be known: the connection counts as lost, and nothing more is written on it. */
    private Lost unknown(String why) {
        lost = "a write's outcome is unknown (" + why + ")";
        return new Lost(lost);
    }

    @Override
    public void close() {
        closeQuietly(connection);
    }

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static final class Holder implements ConnectionEvents {
        volatile EffectConnection owner;


        @Override
        public void connectionEvent(Connection conn, Events type, Long time, String uriDetails) {
            EffectConnection self = owner;
            if (self != null && (type == Events.DISCONNECTED || type == Events.CLOSED)) {
                if (self.lost == null) {
                    self.lost = "the effect connection was lost (" + type + ")";
                }
                self.gone.complete(self.lost);
            }
        }
    }
}
