package ai.cotal.auth.exchange;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.json.ClosedJson;
import ai.cotal.workspace.PrivateFiles;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The token-exchange faces (SPEC §13.17) on the JDK's HTTP server: a loopback face on
 * {@code 127.0.0.1} that requires the capability from {@code <stateDir>/auth-service.json}, and an
 * optional public face. Routes (exact): {@code GET /health}, {@code GET /jwks}
 * ({@code Cache-Control: max-age=300}), {@code POST /exchange}. Refused exchanges are throttled
 * (per face on loopback, per peer on the public face); successes never are. No CORS headers are
 * ever sent. {@link #close()} stops both faces.
 *
 * <p>Latency: the JDK's HTTP server writes a response's headers and body separately, and with
 * Nagle's algorithm on every answer waits for the client's delayed ACK (about 40 ms on Linux).
 * Loading this class sets {@value #NODELAY} to {@code true} unless the embedder set it; the JDK
 * reads it once, when the first {@code HttpServer} of the JVM is created, so an embedder that
 * creates one earlier passes {@code -D}{@value #NODELAY}{@code =true} itself (SPEC §13.17).
 */
public final class TokenExchange implements AutoCloseable {
    /** The JDK HTTP server's TCP_NODELAY switch. */
    public static final String NODELAY = "sun.net.httpserver.nodelay";

    static {
        if (System.getProperty(NODELAY) == null) {
            System.setProperty(NODELAY, "true");
        }
    }

    /** The capability file under the state directory. */
    public static final String DISCOVERY_FILE = "auth-service.json";
    static final int MAX_BODY = 64 * 1024;
    private static final Logger LOG = LoggerFactory.getLogger(TokenExchange.class);
    private static final Duration MINUTE = Duration.ofMinutes(1);

    private record Discovery(Integer ver, String url, String capability) {
        @Override
        public String toString() {
            return "Discovery[" + url + "]";
        }
    }

    private final ExchangeOptions options;
    private final ExchangeArms arms;
    private final HostRoute hostRoute;
    private final byte[] capability;
    private final HttpServer loopback;
    private final HttpServer publicFace;
    private final ExecutorService workers;
    private final RollingWindow loopbackRefusals;
    private final RollingWindow badCapabilities;
    private final Map<String, RollingWindow> peers = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, RollingWindow> eldest) {
            return size() > 1024;
        }
    };
    private final Semaphore inFlight;

    private TokenExchange(ExchangeOptions options, byte[] capability, HttpServer loopback, HttpServer publicFace,
            ExecutorService workers) {
        this.options = options;
        this.arms = new ExchangeArms(options.plane(), options.jwks(), options.clock());
        this.hostRoute = new HostRoute(options.plane(), arms);
        this.capability = capability;
        this.loopback = loopback;
        this.publicFace = publicFace;
        this.workers = workers;
        this.loopbackRefusals = new RollingWindow(options.refusalsPerMinute(), MINUTE, options.clock());
        this.badCapabilities = new RollingWindow(options.refusalsPerMinute(), MINUTE, options.clock());
        this.inFlight = new Semaphore(options.maxInFlight());
    }

    /** Binds the faces and writes the discovery file ({@code {ver: 1, url, capability}}, 0600). */
    public static TokenExchange start(ExchangeOptions options) {
        byte[] raw = new byte[32];
        new SecureRandom().nextBytes(raw);
        byte[] capability = Base64.getUrlEncoder().withoutPadding().encode(raw);
        ExecutorService workers = Executors.newCachedThreadPool(r -> {
            Thread thread = new Thread(r, "cotal-token-exchange");
            thread.setDaemon(true);
            return thread;
        });
        HttpServer loopback = null;
        HttpServer publicFace = null;
        try {
            loopback = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), options.loopbackPort()), 64);
            publicFace = options.publicAddress().isPresent() ? HttpServer.create(options.publicAddress().get(), 64) : null;
            TokenExchange exchange = new TokenExchange(options, capability, loopback, publicFace, workers);
            loopback.createContext("/", http -> exchange.serve(http, false));
            loopback.setExecutor(workers);
            loopback.start();
            if (publicFace != null) {
                publicFace.createContext("/", http -> exchange.serve(http, true));
                publicFace.setExecutor(workers);
                publicFace.start();
            }
            PrivateFiles.ensureDirectory(options.stateDir(), options.stateDir());
            PrivateFiles.write(options.stateDir().resolve(DISCOVERY_FILE), ClosedJson.write(ClosedJson.cotal(),
                    new Discovery(1, exchange.loopbackUrl(), new String(capability, StandardCharsets.US_ASCII))));
            return exchange;
        } catch (IOException | RuntimeException e) {
            // a failed start leaves nothing bound: stop whichever face exists, then the workers
            if (loopback != null) {
                loopback.stop(0);
            }
            if (publicFace != null) {
                publicFace.stop(0);
            }
            workers.shutdownNow();
            if (e instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new CotalException(ErrorCode.UNAVAILABLE, "token exchange: cannot bind (" + e.getMessage() + ")", e);
        }
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String loopbackUrl() {
        return "http://127.0.0.1:" + loopback.getAddress().getPort();
    }

    /** The public face's URL, when it runs. */
    public java.util.Optional<String> publicUrl() {
        return publicFace == null ? java.util.Optional.empty()
                : java.util.Optional.of("http://" + publicFace.getAddress().getHostString() + ":" + publicFace.getAddress().getPort());
    }

    private void serve(HttpExchange http, boolean isPublic) throws IOException {
        try (http) {
            String path = http.getRequestURI().getRawPath();
            switch (path) {
                case "/health" -> respond(http, 200, Map.of("ok", true, "issuer",
                        ai.cotal.auth.BearerIssuer.issuerOf(options.plane().space())));
                case "/jwks" -> {
                    http.getResponseHeaders().set("Cache-Control", "max-age=300");
                    respondRaw(http, 200, options.plane().jwks().getBytes(StandardCharsets.UTF_8));
                }
                case "/exchange" -> exchange(http, isPublic);
                case "/service-endpoint-host" -> host(http, isPublic, false);
                case "/service-endpoint-authority" -> host(http, isPublic, true);
                default -> respond(http, 404, Map.of("error", "not found"));
            }
        } catch (CotalException e) {
            respond(http, e.code() == ErrorCode.UNAVAILABLE ? 503 : 500, Map.of("error", e.getMessage()));
        } catch (RuntimeException e) {
            LOG.error("token exchange: unexpected failure", e);
            respond(http, 500, Map.of("error", "internal error"));
        }
    }

    /** The service-endpoint routes: the same door as the exchange, then {@link HostRoute}. */
    private void host(HttpExchange http, boolean isPublic, boolean authority) throws IOException {
        byte[] body = door(http, isPublic); // before anything else: the door tells nobody what this lane hosts
        if (body == null) {
            return;
        }
        if (!options.plane().serviceEndpointsEnabled()) {
            respond(http, 404, Map.of("error", "this space hosts no service endpoints"));
            return;
        }
        if (isPublic && !inFlight.tryAcquire()) { // the public face shares the exchange's in-flight budget
            respond(http, 503, Map.of("error", "busy - retry shortly"));
            return;
        }
        try {
            HostRoute.Answer answer = hostRoute.serve(body, !isPublic, authority);
            respondRaw(http, answer.status(), answer.body());
        } finally {
            if (isPublic) {
                inFlight.release();
            }
        }
    }

    /**
     * The door every POST route shares: POST only (405), no browser {@code Origin} (403), JSON
     * (415), the loopback capability (401, then 429 after the budget), at most 64 KiB (413).
     * Returns the body, or null once it has answered.
     */
    private byte[] door(HttpExchange http, boolean isPublic) throws IOException {
        if (!"POST".equals(http.getRequestMethod())) {
            respond(http, 405, Map.of("error", "POST only"));
            return null;
        }
        if (http.getRequestHeaders().containsKey("Origin")) {
            respond(http, 403, Map.of("error", "browser requests are refused"));
            return null;
        }
        String type = http.getRequestHeaders().getFirst("Content-Type");
        if (type == null || !type.toLowerCase(java.util.Locale.ROOT).matches("application/json\\s*(;.*)?")) {
            respond(http, 415, Map.of("error", "Content-Type must be application/json"));
            return null;
        }
        if (!isPublic && !capabilityMatches(http.getRequestHeaders().getFirst("Authorization"))) {
            boolean throttled = badCapabilities.record();
            LOG.warn("token exchange: a request with a missing or wrong capability");
            respond(http, throttled ? 429 : 401, Map.of("error", throttled ? "too many bad capabilities - wait a minute"
                    : "missing or wrong capability"));
            return null;
        }
        byte[] body = readBody(http.getRequestBody());
        if (body == null) {
            respond(http, 413, Map.of("error", "body over 64 KiB"));
        }
        return body;
    }

    private void exchange(HttpExchange http, boolean isPublic) throws IOException {
        byte[] body = door(http, isPublic);
        if (body == null) {
            return;
        }
        ExchangeArms.Request request;
        try {
            request = ClosedJson.read(ClosedJson.cotal(), body, ExchangeArms.Request.class, "exchange");
            validate(request);
        } catch (CotalException e) {
            respond(http, 400, Map.of("error", e.getMessage()));
            return;
        }
        Reply reply = new Reply(http);
        if (isPublic) {
            publicExchange(reply, request);
        } else {
            finish(reply, request, loopbackRefusals);
        }
    }

    private void publicExchange(Reply reply, ExchangeArms.Request request) throws IOException {
        HttpExchange http = reply.http;
        RollingWindow peer;
        synchronized (peers) {
            peer = peers.computeIfAbsent(http.getRemoteAddress().getAddress().getHostAddress(),
                    k -> new RollingWindow(options.refusalsPerMinute(), MINUTE, options.clock()));
        }
        if (!inFlight.tryAcquire()) {
            reply.send(503, Map.of("error", "busy - retry shortly"));
            return;
        }
        try {
            Future<?> work = workers.submit(() -> {
                finish(reply, request, peer);
                return null;
            });
            try {
                work.get(options.deadline().toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                reply.send(503, Map.of("error", "request deadline exceeded"));
                work.cancel(true);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                reply.send(503, Map.of("error", "request deadline exceeded"));
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IOException(e.getCause());
            }
        } finally {
            inFlight.release();
        }
    }

    private void finish(Reply reply, ExchangeArms.Request request, RollingWindow refusals) throws IOException {
        try {
            ExchangeArms.Response response = arms.exchange(request);
            reply.send(200, Map.of("token", response.token(), "owner", response.owner(), "exp", response.exp()));
        } catch (CotalException e) {
            if (e.code() == ErrorCode.BAD_REQUEST) {
                reply.send(400, Map.of("error", e.getMessage()));
                return;
            }
            if (e.code() == ErrorCode.UNAVAILABLE) {
                reply.send(503, Map.of("error", e.getMessage()));
                return;
            }
            LOG.info("auth-service: refused an exchange: {}", e.getMessage());
            if (refusals.record()) {
                reply.send(429, Map.of("error", "too many refused exchanges - wait a minute and retry"));
            } else {
                reply.send(401, Map.of("error", e.getMessage()));
            }
        }
    }

    /** One answer per exchange, whichever of the worker and the deadline comes first. */
    private static final class Reply {
        final HttpExchange http;
        private final java.util.concurrent.atomic.AtomicBoolean sent = new java.util.concurrent.atomic.AtomicBoolean();

        Reply(HttpExchange http) {
            this.http = http;
        }

        void send(int status, Map<String, ?> body) throws IOException {
            if (sent.compareAndSet(false, true)) {
                respond(http, status, body);
            }
        }
    }

    private static void validate(ExchangeArms.Request request) {
        boolean human = request.idpToken() != null;
        boolean agent = request.actorToken() != null;
        if (human == agent) {
            throw CotalException.badRequest("exchange", "give exactly one of idpToken and actorToken");
        }
        if (request.ttlSec() != null && request.ttlSec() <= 0) {
            throw CotalException.badRequest("ttlSec", "must be a positive number of seconds");
        }
    }

    private boolean capabilityMatches(String authorization) {
        if (authorization == null || !authorization.startsWith("Bearer ")) {
            return false;
        }
        return MessageDigest.isEqual(capability, authorization.substring(7).getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * The body, or null when it is over the limit. The rest is not read: the answer goes out and
     * the exchange is closed, so an endless body cannot hold a worker.
     */
    private static byte[] readBody(InputStream in) throws IOException {
        byte[] body = in.readNBytes(MAX_BODY + 1);
        return body.length > MAX_BODY ? null : body;
    }

    private static void respond(HttpExchange http, int status, Map<String, ?> body) throws IOException {
        respondRaw(http, status, ClosedJson.write(ClosedJson.cotal(), body));
    }

    private static void respondRaw(HttpExchange http, int status, byte[] body) throws IOException {
        http.getResponseHeaders().set("Content-Type", "application/json");
        http.sendResponseHeaders(status, body.length);
        http.getResponseBody().write(body);
    }

    @Override
    public void close() {
        loopback.stop(0);
        if (publicFace != null) {
            publicFace.stop(0);
        }
        workers.shutdownNow();
    }
}
