package ai.cotal.auth.internal.callout;

import ai.cotal.auth.internal.flow.FairWorkers;
import ai.cotal.auth.internal.metrics.AuthMetrics;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.trust.CalloutAuth;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The space's auth callout responder (SPEC §13.16): on the callout account's connection it serves
 * {@value CalloutAuth#REQUEST_SUBJECT} in the queue group {@value CalloutOptions#QUEUE_GROUP}, so
 * several responders share the load and any one can stop; on a cluster the group spans the
 * members, so responders on different members keep answering when one member is lost. Once its
 * authority stops ({@link CalloutAuthority#stopped()}) the responder leaves the group rather than
 * refuse every connect it is handed. The dispatcher only opens each request and sorts it into a
 * lane: requests whose token has a bearer's shape may use every worker, the rest at most one of
 * them and a short queue, each lane served round-robin over the clients' hosts and newest first,
 * so a flood of connects with the public sentinel alone cannot crowd out connects that carry a
 * bearer; the bearer lane's answers go out on a second connection of the callout user, so the
 * broker reads them beside, not behind, the other lane's refusals. Requests that are not sealed to the
 * callout's curve key, do not verify, or do not come from an expected server get no answer; a
 * refused bearer gets a signed, sealed error with the reason. Closing stops this responder only.
 * Thread-safe.
 */
public final class AuthCallout implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AuthCallout.class);

    /** Requests are answered by this many threads; the dispatcher only opens and sorts them. */
    static final int WORKERS = 4;
    /** At most this many workers answer requests without a bearer-shaped token at once. */
    static final int REST_WORKERS = 1;
    /** Requests with a bearer-shaped token that wait for a worker, at most (the bearer lane). */
    static final int BEARER_WAITING = 256;
    /** Other requests that wait for a worker, at most (the other lane). */
    static final int REST_WAITING = 32;

    private final Connection connection;
    private final Connection answers;
    private final CalloutHandler handler;
    private final FairWorkers<CalloutHandler.Arrival> lanes;

    private final String space;
    private volatile Dispatcher dispatcher;
    private volatile boolean answering = true;
    private volatile AuthMetrics.Registration gauges = () -> { };

    private AuthCallout(Connection connection, Connection answers, CalloutHandler handler, String space,
            AuthMetrics metrics) {
        this.connection = connection;
        this.answers = answers;
        this.handler = handler;
        this.space = space;
        this.lanes = new FairWorkers<>("cotal-auth-callout", WORKERS, List.of(new FairWorkers.Lane(BEARER_WAITING, true,
                WORKERS), new FairWorkers.Lane(REST_WAITING, true, REST_WORKERS)), this::answer, dropped -> metrics
                .calloutDecision(AuthMetrics.CalloutOutcome.DROPPED, AuthMetrics.CalloutReason.OVERFLOW, null,
                        System.nanoTime() - dropped.arrived()));
    }

    /**
     * Connects as the callout user twice (the requests and the other lane's answers; the bearer
     * lane's answers), each to one of the servers, reconnecting forever to any member of the
     * cluster it knows, and starts answering; leaves the queue group once the authority stops
     * ({@link CalloutAuthority#stopped()}).
     */
    public static AuthCallout start(CalloutOptions options) {
        Connection connection = connect(options, "cotal:auth-callout:");
        Connection answers;
        try {
            answers = connect(options, "cotal:auth-callout-answers:");
        } catch (RuntimeException e) {
            closeQuietly(connection);
            throw e;
        }
        CalloutHandler handler = new CalloutHandler(options);
        AuthCallout callout = new AuthCallout(connection, answers, handler, options.plane().space(), options.metrics());
        Dispatcher dispatcher = connection.createDispatcher(callout::onMessage);
        callout.dispatcher = dispatcher;
        dispatcher.subscribe(CalloutAuth.REQUEST_SUBJECT, options.queueGroup());
        try {
            connection.flush(Duration.ofSeconds(5));
        } catch (Exception e) {
            callout.close();
            throw new ai.cotal.core.CotalException(ai.cotal.core.ErrorCode.UNAVAILABLE,
                    "auth callout: the subscription was not confirmed by the broker", e);
        }
        options.plane().stopped().thenAccept(callout::leave);
        callout.gauges = options.metrics().calloutGauges(callout::answering); // left at close()
        return callout;
    }

    private static Connection connect(CalloutOptions options, String label) {
        return NatsConnector.builder().servers(options.servers()).creds(options.callout().calloutCreds())
                .label(label + options.plane().space()).maxReconnects(-1).timeout(Duration.ofSeconds(5))
                .sslContext(options.sslContext()).build().connect();
    }

    /** Leaves the queue group: the authority can only refuse now, so the other responders answer. */
    private void leave(String why) {
        if (!answering) {
            return;
        }
        answering = false;
        try {
            dispatcher.unsubscribe(CalloutAuth.REQUEST_SUBJECT);
            LOG.warn("auth-callout: space {}: left the queue group, its authority stopped: {}", space, why);
        } catch (RuntimeException e) { // closed meanwhile: it has left already
            LOG.debug("auth-callout: space {}: the responder was closed before it could leave", space);
        }
    }

    /** True until the responder left the queue group (its authority stopped) or was closed. */
    public boolean answering() {
        return answering;
    }

    /** The dispatcher's part: open and classify (cheap), then queue in the request's lane. */
    private void onMessage(Message message) {
        try {
            CalloutHandler.Arrival arrival = handler.arrive(message, System.nanoTime());
            if (arrival != null) {
                lanes.offer(arrival.bearer() ? 0 : 1, arrival.source(), arrival);
            }
        } catch (RuntimeException e) {
            LOG.error("auth-callout: a request failed unexpectedly; it gets no answer", e);
        }
    }

    private void answer(CalloutHandler.Arrival arrival) {
        try {
            // the broker acts on a connection's messages in order: a bearer's answer never waits behind refusals
            handler.handle(arrival).ifPresent(bytes -> (arrival.bearer() ? answers : connection)
                    .publish(arrival.replyTo(), bytes));
        } catch (RuntimeException e) {
            LOG.error("auth-callout: a request failed unexpectedly; it gets no answer", e);
        }
    }

    /** The responder's connection: its requests and the other lane's answers (monitoring, tests). */
    public Connection connection() {
        return connection;
    }

    /** The connection of the bearer lane's answers (monitoring, tests). */
    public Connection answers() {
        return answers;
    }

    @Override
    public void close() {
        answering = false;
        gauges.close();
        lanes.closeNow();
        closeQuietly(connection);
        closeQuietly(answers);
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
