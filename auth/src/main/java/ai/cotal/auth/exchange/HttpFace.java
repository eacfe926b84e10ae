package ai.cotal.auth.exchange;

import ai.cotal.auth.internal.metrics.AuthMetrics;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * One HTTP face (SPEC §13.17): the one place a Jetty server is built, for the token exchange's
 * faces and the metrics scrape ({@link MetricsFace}). It
 * has a bounded thread pool of its own ({@code workerThreads}: one acceptor, one selector, the
 * rest serve; its queue is bounded by the connection cap, one request per connection), a cap on open connections (at the cap the
 * face stops accepting), a cap per direct peer address (the excess is closed as soon as it is
 * accepted; the trusted proxy is exempt), a read deadline per request (headers and body must
 * arrive within {@code readDeadline} of the connection's opening or the previous answer, else the
 * connection is closed unanswered), an 8 KiB request-header limit and TCP_NODELAY. Headers are
 * parsed by the selector as bytes arrive, so a slow client holds a connection slot and no thread.
 */
final class HttpFace implements AutoCloseable {
    static final int HEADER_LIMIT = 8 * 1024;
    /** Idle time allowed while an answer is being computed or written (reads have the read deadline). */
    static final long IDLE_MILLIS = 30_000;

    /** The routes on top of the face. */
    interface Routes {
        void serve(HttpCall call);
    }

    /** The route tag of each exact route (SPEC §13.21); any other path is {@code other}, never itself. */
    private static final Map<String, String> ROUTE_TAGS = Map.ofEntries(Map.entry("/health", "health"),
            Map.entry("/jwks", "jwks"), Map.entry("/exchange", "exchange"), Map.entry(JoinBundle.ROUTE, "join-bundle"),
            Map.entry("/service-endpoint-host", "service-endpoint-host"),
            Map.entry("/service-endpoint-authority", "service-endpoint-authority"),
            Map.entry(ManagerAuthorityRoute.ISSUE, "manager-service-authority"),
            Map.entry(ManagerAuthorityRoute.VERIFY, "verify-enrollment"), Map.entry(RunRoute.ADMISSION, "run-admission"),
            Map.entry(RunRoute.ATTEMPT, "run-attempt"),
            Map.entry(RunRoute.OPERATOR, "run-operator-attempt"), Map.entry(LifecycleRoute.INTERACTIVE, "retire-interactive"),
            Map.entry(LifecycleRoute.MANAGED, "retire-managed"), Map.entry(ActorRoute.GRANT, "actor-grant"),
            Map.entry(ActorRoute.REVOKE, "actor-revoke"), Map.entry(ActorRoute.LIST, "actor-list"));

    private final Server server;
    private final ServerConnector connector;
    private final NetworkConnectionLimit limit;
    private final PeerCap peers;
    private final ReadDeadline deadlines;
    private final AuthMetrics.Face tag;
    private final AuthMetrics metrics;
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile AuthMetrics.Registration gauges = () -> { };

    private HttpFace(Server server, ServerConnector connector, NetworkConnectionLimit limit, PeerCap peers,
            ReadDeadline deadlines, AuthMetrics.Face tag, AuthMetrics metrics) {
        this.server = server;
        this.connector = connector;
        this.limit = limit;
        this.peers = peers;
        this.deadlines = deadlines;
        this.tag = tag;
        this.metrics = metrics;
    }

    /**
     * The bounds of one face (SPEC §13.17): its threads, its open connections, the connections of
     * one direct peer, and the read deadline of a request.
     */
    record Bounds(int workerThreads, int maxConnections, int maxConnectionsPerPeer, Duration readDeadline) {
        /** The bounds the exchange's options give each of its faces. */
        static Bounds of(ExchangeOptions options) {
            return new Bounds(options.limits().workerThreads(), options.limits().maxConnections(), options.limits().maxConnectionsPerPeer(),
                    options.limits().readDeadline());
        }
    }

    /**
     * Binds and starts the face {@code tag} at {@code address} within {@code bounds}, recording
     * into {@code metrics}; the direct peer {@code exempt} holds no per-peer slot. An address that
     * cannot be bound is {@code unavailable} (naming the face and the port) and leaves nothing running.
     */
    static HttpFace start(AuthMetrics.Face tag, InetSocketAddress address, Bounds bounds, AuthMetrics metrics,
            Optional<InetAddress> exempt, Routes routes) {
        String name = AuthMetrics.tag(tag);
        // the job queue is Jetty's own: jobs come from open connections (one request each at a
        // time), so the connection cap bounds it; Jetty warns against a bounded queue of its own
        QueuedThreadPool pool = new QueuedThreadPool(bounds.workerThreads(), Math.min(4, bounds.workerThreads()), 60_000);
        pool.setReservedThreads(0);
        pool.setName("cotal-exchange-" + name);
        pool.setDaemon(true);
        Server server = new Server(pool);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendXPoweredBy(false);
        http.setRequestHeaderSize(HEADER_LIMIT);
        // the door answers from the headers, before any body byte: Jetty 12.1 core dispatches on the
        // headers unless an EagerContentHandler is installed (none is; the old HttpConfiguration flag is inert)
        ServerConnector connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(http));
        connector.setHost(address.getAddress().getHostAddress());
        connector.setPort(address.getPort());
        connector.setIdleTimeout(IDLE_MILLIS);
        connector.setAcceptedTcpNoDelay(true);
        PeerCap peers = new PeerCap(bounds.maxConnectionsPerPeer(), exempt);
        ReadDeadline deadlines = new ReadDeadline(server, bounds.readDeadline().toMillis());
        connector.addBean(peers);
        connector.addBean(deadlines);
        server.addConnector(connector);
        NetworkConnectionLimit limit = new NetworkConnectionLimit(bounds.maxConnections(), connector);
        server.addBean(limit);
        server.setErrorHandler(new JsonErrors());
        HttpFace face = new HttpFace(server, connector, limit, peers, deadlines, tag, metrics);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                face.inFlight.incrementAndGet(); // HttpCall gives it back once, when the call ends either way
                routes.serve(new HttpCall(face, request, response, callback));
                return true;
            }
        });
        try {
            server.start();
        } catch (Exception e) {
            face.close();
            throw new CotalException(ErrorCode.UNAVAILABLE, "the " + name + " HTTP face cannot bind port "
                    + address.getPort(), e);
        }
        face.gauges = face.metrics.faceGauges(tag, face::openConnections, face.inFlight::get, face::refusedByPeerCap,
                face::cutByReadDeadline);
        return face;
    }

    /** A call of this face ended (answered, or its connection failed): it is no longer in flight. */
    void ended() {
        inFlight.decrementAndGet();
    }

    /** The call to {@code path} was answered {@code status}, {@code nanos} after dispatch (SPEC §13.21). */
    void answered(String path, int status, long nanos) {
        metrics.httpAnswer(tag, ROUTE_TAGS.getOrDefault(path, "other"), status, nanos);
    }

    /** This face's tag. */
    AuthMetrics.Face tag() {
        return tag;
    }

    /** The bound address. */
    InetSocketAddress address() {
        return new InetSocketAddress(connector.getHost(), connector.getLocalPort());
    }

    /** Connections open now (the face's cap counts these). */
    int openConnections() {
        return limit.getNetworkConnectionCount();
    }

    /** Connections closed at once because their peer was at its cap. */
    long refusedByPeerCap() {
        return peers.refused.get();
    }

    /** Connections closed because a request did not arrive within the read deadline. */
    long cutByReadDeadline() {
        return deadlines.cut.get();
    }

    /** The request has arrived in full: its connection's read deadline stops. */
    void arrived(Request request) {
        deadlines.disarm(request.getConnectionMetaData().getConnection());
    }

    /** The answer is out: the next request on the connection has the read deadline again. */
    void answered(Request request) {
        deadlines.arm(request.getConnectionMetaData().getConnection());
    }

    /** Runs {@code task} after {@code millis} on the face's scheduler. */
    Scheduler.Task schedule(Runnable task, long millis) {
        return server.getScheduler().schedule(task, millis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        gauges.close();
        try {
            server.stop();
        } catch (Exception e) {
            org.slf4j.LoggerFactory.getLogger(HttpFace.class).warn("token exchange: a face did not stop cleanly ({})",
                    e.getClass().getSimpleName());
        }
    }

    /**
     * Closes a connection whose direct peer already holds {@code cap} connections on this face.
     * The peer's key is taken once, when the connection opens, and kept with the connection: once
     * closed, a connection's endpoint no longer knows its remote address (its channel is closed
     * before the close is reported), so the slot is given back from what was kept, exactly once
     * (the entry is removed by the one close report), however the connection ended.
     */
    private static final class PeerCap implements Connection.Listener {
        private final int cap;
        private final Optional<InetAddress> exempt;
        private final Map<String, Integer> open = new ConcurrentHashMap<>(); // by ClientAddress.key (IPv6: its /64)
        private final Map<Connection, String> counted = new ConcurrentHashMap<>(); // each open connection's key
        final AtomicLong refused = new AtomicLong();

        PeerCap(int cap, Optional<InetAddress> exempt) {
            this.cap = cap;
            this.exempt = exempt;
        }

        @Override
        public void onOpened(Connection connection) {
            SocketAddress remote = connection.getEndPoint().getRemoteSocketAddress();
            if (!(remote instanceof InetSocketAddress inet) || inet.getAddress() == null
                    || exempt.map(inet.getAddress()::equals).orElse(false)) {
                return; // the trusted proxy (or an endpoint already gone) holds no per-peer slot
            }
            String key = ClientAddress.key(inet.getAddress());
            counted.put(connection, key); // before the count: a close reported at once finds it
            if (open.merge(key, 1, Integer::sum) > cap) {
                refused.incrementAndGet();
                connection.getEndPoint().close();
            }
        }

        @Override
        public void onClosed(Connection connection) {
            String key = counted.remove(connection);
            if (key != null) {
                open.computeIfPresent(key, (k, n) -> n <= 1 ? null : n - 1);
            }
        }
    }

    /**
     * The read deadline: armed when a connection opens and after each answer, disarmed when a
     * request has arrived in full; when it fires the connection is closed unanswered.
     */
    private static final class ReadDeadline implements Connection.Listener {
        private record Armed(Object token, Scheduler.Task task) {
        }

        private final Server server;
        private final long millis;
        private final Map<Connection, Armed> armed = new ConcurrentHashMap<>();
        final AtomicLong cut = new AtomicLong();

        ReadDeadline(Server server, long millis) {
            this.server = server;
            this.millis = millis;
        }

        void arm(Connection connection) {
            Object token = new Object();
            Scheduler.Task task = server.getScheduler().schedule(() -> expire(connection, token), millis,
                    TimeUnit.MILLISECONDS);
            Armed old = armed.put(connection, new Armed(token, task));
            if (old != null) {
                old.task().cancel();
            }
            if (!connection.getEndPoint().isOpen()) {
                disarm(connection); // closed meanwhile: onClosed may have run before the put
            }
        }

        void disarm(Connection connection) {
            Armed old = armed.remove(connection);
            if (old != null) {
                old.task().cancel();
            }
        }

        private void expire(Connection connection, Object token) {
            Armed now = armed.get(connection);
            if (now != null && now.token() == token && armed.remove(connection, now)) {
                cut.incrementAndGet();
                connection.getEndPoint().close();
            }
        }

        @Override
        public void onOpened(Connection connection) {
            arm(connection);
        }

        @Override
        public void onClosed(Connection connection) {
            disarm(connection);
        }
    }

    /** Jetty's own refusals (malformed request, headers over the limit) as {@code {error}} JSON, the reason phrase only. */
    private static final class JsonErrors extends ErrorHandler {
        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            int status = response.getStatus() >= 400 ? response.getStatus() : 500;
            Object attribute = request.getAttribute(ERROR_STATUS);
            if (attribute instanceof Integer code && code >= 400) {
                status = code;
            }
            String reason = HttpStatus.getMessage(status).toLowerCase(java.util.Locale.ROOT);
            response.setStatus(status);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
            response.write(true, ByteBuffer.wrap(("{\"error\":\"" + reason.replaceAll("[^a-z0-9 -]", "") + "\"}")
                    .getBytes(StandardCharsets.UTF_8)), callback);
            return true;
        }
    }
}
