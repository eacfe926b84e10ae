package ai.cotal.auth.callout;

import ai.cotal.auth.callout.CalloutHandler;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.trust.CalloutAuth;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The space's auth callout responder (SPEC §13.16): on the callout account's connection it serves
 * {@value CalloutAuth#REQUEST_SUBJECT} in the queue group {@value CalloutOptions#QUEUE_GROUP}, so
 * several responders share the load and any one can stop. Requests that are not sealed to the
 * callout's curve key, do not verify, or do not come from an expected server get no answer; a
 * refused bearer gets a signed, sealed error with the reason. Closing stops this responder only.
 * Thread-safe.
 */
public final class AuthCallout implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AuthCallout.class);

    /** Requests are answered by this many threads; the dispatcher only hands them over. */
    private static final int WORKERS = 4;
    /**
     * At most this many requests wait for a worker; past it the oldest waiting one is dropped (the
     * broker denies it when its authorization timeout passes, as it would have anyway), so a
     * connect flood costs bounded memory and the newest requests are answered first.
     */
    static final int MAX_WAITING = 256;

    private final Connection connection;
    private final CalloutHandler handler;
    private final java.util.concurrent.ExecutorService workers = new java.util.concurrent.ThreadPoolExecutor(WORKERS,
            WORKERS, 0, java.util.concurrent.TimeUnit.MILLISECONDS, new java.util.concurrent.ArrayBlockingQueue<>(MAX_WAITING),
            r -> {
                Thread thread = new Thread(r, "cotal-auth-callout");
                thread.setDaemon(true);
                return thread;
            }, new java.util.concurrent.ThreadPoolExecutor.DiscardOldestPolicy());

    private AuthCallout(Connection connection, CalloutHandler handler) {
        this.connection = connection;
        this.handler = handler;
    }

    /** Connects as the callout user and starts answering. */
    public static AuthCallout start(CalloutOptions options) {
        Connection connection = NatsConnector.builder().servers(options.servers()).creds(options.callout().calloutCreds())
                .label("cotal:auth-callout:" + options.plane().space()).maxReconnects(-1).timeout(Duration.ofSeconds(5))
                .sslContext(options.sslContext()).build().connect();
        CalloutHandler handler = new CalloutHandler(options);
        AuthCallout callout = new AuthCallout(connection, handler);
        Dispatcher dispatcher = connection.createDispatcher(callout::onMessage);
        dispatcher.subscribe(CalloutAuth.REQUEST_SUBJECT, options.queueGroup());
        try {
            connection.flush(Duration.ofSeconds(5));
        } catch (Exception e) {
            callout.close();
            throw new ai.cotal.core.CotalException(ai.cotal.core.ErrorCode.UNAVAILABLE,
                    "auth callout: the subscription was not confirmed by the broker", e);
        }
        return callout;
    }

    private void onMessage(Message message) {
        try {
            workers.execute(() -> answer(message));
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            LOG.debug("auth-callout: closing; a request gets no answer");
        }
    }

    private void answer(Message message) {
        try {
            Optional<byte[]> answer = handler.handle(message);
            answer.ifPresent(bytes -> connection.publish(message.getReplyTo(), bytes));
        } catch (RuntimeException e) {
            LOG.error("auth-callout: a request failed unexpectedly; it gets no answer", e);
        }
    }

    /** The responder's connection (monitoring, tests). */
    public Connection connection() {
        return connection;
    }

    @Override
    public void close() {
        workers.shutdownNow();
        try {
            connection.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
