package ai.cotal.auth.exchange;

import ai.cotal.auth.internal.metrics.AuthMetrics;
import ai.cotal.auth.ServiceEndpointHost;
import ai.cotal.core.CotalException;
import ai.cotal.core.internal.json.ClosedJson;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The routes of both faces (SPEC §13.17, §13.18): {@code GET /health}, {@code GET /jwks},
 * {@code POST /exchange}, the two service-endpoint routes, the two manager run routes ({@link RunRoute})
 * and, on the loopback face, the operator's run attempts and the two
 * lifecycle retire routes ({@link LifecycleRoute}). Every POST route passes the same
 * door, from the headers alone: method (405), {@code Origin} (403), type (415), on the loopback
 * face the capability (401, or 429 once wrong ones fill their window; the right one is never
 * throttled by them), the throttle (429, before any token or secret is looked at), the declared
 * size (413); only
 * then is the body read (413 past 64 KiB, the rest unread). A refusal before the body closes the
 * connection.
 */
final class ExchangeRoutes {
    static final int MAX_BODY = 64 * 1024;
    private static final Logger LOG = LoggerFactory.getLogger(ExchangeRoutes.class);
    private static final Duration MINUTE = Duration.ofMinutes(1);

    private final ExchangeOptions options;
    private final ExchangeArms arms;
    private final HostRoute hostRoute;
    private final byte[] capability;
    private final RollingWindow loopbackRefusals;
    private final RollingWindow badCapabilities;
    private final Map<String, RollingWindow> peers = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, RollingWindow> eldest) {
            return size() > 1024;
        }
    };
    private final Semaphore inFlight;
    /** The grant policy's writes, and the operator's actor writes under the same lock. */
    private final PolicyAdmission admission;
    /** The public face's bound URL, set once it is bound (the join bundle names it). */
    private volatile String publicUrl;

    ExchangeRoutes(ExchangeOptions options, byte[] capability) {
        this.options = options;
        this.admission = new PolicyAdmission(options.plane()::ledger, options.grantPolicy(), options.metrics()::policyGrant);
        this.arms = new ExchangeArms(options.plane(), options.jwks(), options.jwksFetchesPerMinute(),
                options.clock(), admission);
        this.hostRoute = new HostRoute(options.plane(), arms);
        this.capability = capability;
        this.loopbackRefusals = new RollingWindow(options.limits().refusalsPerMinute(), MINUTE, options.clock());
        this.badCapabilities = new RollingWindow(options.limits().refusalsPerMinute(), MINUTE, options.clock());
        this.inFlight = new Semaphore(options.limits().maxInFlight());
    }

    void publicFaceBound(String url) {
        this.publicUrl = url;
    }

    void serve(HttpCall call, boolean isPublic) {
        String path = call.path();
        guarded(call, path, () -> {
            switch (path) {
                case "/health" -> {
                    call.arrived();
                    call.send(200, isPublic ? HealthDocument.publicFace(options.plane().space())
                            : health(call.header(HealthProof.CHALLENGE_HEADER)));
                }
                case "/jwks" -> {
                    call.arrived();
                    byte[] jwks = options.plane().bearers().jwks().getBytes(StandardCharsets.UTF_8);
                    call.sendRaw(200, jwks, false, "max-age=300");
                }
                case JoinBundle.ROUTE -> bundle(call, isPublic);
                case "/exchange" -> door(call, isPublic, path, (body, refusals) -> exchange(call, isPublic, body, refusals));
                case "/service-endpoint-host" -> door(call, isPublic, path, (body, refusals) -> host(call, isPublic, body, false));
                case "/service-endpoint-authority" -> door(call, isPublic, path, (body, refusals) -> host(call, isPublic, body,
                        true));
                case ManagerAuthorityRoute.ISSUE -> door(call, isPublic, path, (body, refusals) -> managerAuthority(call,
                        isPublic, body, refusals));
                case ManagerAuthorityRoute.VERIFY -> {
                    if (isPublic) { // the operator's check: loopback only (SPEC §14.6)
                        call.arrived();
                        call.send(404, Map.of("error", "not found"));
                    } else {
                        door(call, false, path, (body, refusals) -> call.send(200, ManagerAuthorityRoute.verifyEnrollment(
                                options.plane(), body)));
                    }
                }
                case RunRoute.ADMISSION, RunRoute.ATTEMPT -> door(call, isPublic, path, (body, refusals) -> runs(call,
                        isPublic, path, body, refusals));
                case RunRoute.OPERATOR -> {
                    if (isPublic) { // the operator's attempts: loopback only (SPEC §14.7)
                        call.arrived();
                        call.send(404, Map.of("error", "not found"));
                    } else {
                        door(call, false, path, (body, refusals) -> call.send(200, RunRoute.operator(options.plane(),
                                body)));
                    }
                }
                case LifecycleRoute.INTERACTIVE, LifecycleRoute.MANAGED -> {
                    if (isPublic) { // the operator's routes: loopback only (SPEC §14.1)
                        call.arrived();
                        call.send(404, Map.of("error", "not found"));
                    } else {
                        door(call, false, path, (body, refusals) -> call.send(200, LifecycleRoute.retire(
                                options.plane().lifecycles(), body, path.equals(LifecycleRoute.MANAGED))));
                    }
                }
                case ActorRoute.GRANT, ActorRoute.REVOKE, ActorRoute.LIST -> {
                    if (isPublic) { // the operator's routes: loopback only (SPEC §13.18)
                        call.arrived();
                        call.send(404, Map.of("error", "not found"));
                    } else {
                        door(call, false, path, (body, refusals) -> actors(call, path, body));
                    }
                }
                default -> {
                    call.arrived();
                    call.send(404, Map.of("error", "not found"));
                }
            }
        });
    }

    /** The actor routes (SPEC §13.18): a 4xx refusal also carries its code, for the CLI to print. */
    private void actors(HttpCall call, String path, byte[] body) {
        try {
            call.send(200, admission.exclusive(() -> ActorRoute.serve(options.plane(), path, body)));
        } catch (CotalException e) {
            int status = Refusals.status(e.code());
            if (status >= 500) {
                throw e; // the one mapping: logged, the cause never in the body
            }
            call.send(status, Map.of("error", Refusals.message(e, path), "code", e.code().wire()));
        }
    }

    /** The join bundle (SPEC §13.17): public face only, a GET; no door, no body, nothing secret. */
    private void bundle(HttpCall call, boolean isPublic) {
        call.arrived();
        String url = publicUrl;
        if (!isPublic || options.sentinelCreds().isEmpty()) {
            call.send(404, Map.of("error", "not found"));
        } else if (!call.method().equals("GET")) {
            call.send(405, Map.of("error", "method not allowed"));
        } else if (url == null) {
            call.send(503, Map.of("error", Refusals.UNAVAILABLE));
        } else {
            call.sendRaw(200, JoinBundle.render(options.plane().space(), options.bundleServer().orElseThrow(),
                    options.sentinelCreds().get().text(), url, options.plane().idpPin(), options.agentProvisioningUrl()),
                    false, "no-store");
        }
    }

    /** Runs {@code work}; a typed failure answers through {@link Refusals}, anything else 500 (logged, class only). */
    private static void guarded(HttpCall call, String route, Runnable work) {
        try {
            work.run();
        } catch (CotalException e) {
            call.send(Refusals.status(e.code()), Map.of("error", Refusals.message(e, route)));
        } catch (RuntimeException e) {
            LOG.error("token exchange: {}: unexpected {}", route, e.getClass().getName());
            call.send(500, Map.of("error", Refusals.INTERNAL));
        }
    }

    /** What a route does with a body that passed the door, and the refusal window it counts in. */
    private interface Work {
        void run(byte[] body, RollingWindow refusals);
    }

    private void door(HttpCall call, boolean isPublic, String route, Work work) {
        if (!"POST".equals(call.method())) {
            call.refuseUnread(405, Map.of("error", "POST only"));
            return;
        }
        if (call.header("Origin") != null) {
            call.refuseUnread(403, Map.of("error", "browser requests are refused"));
            return;
        }
        String type = call.header("Content-Type");
        if (type == null || !type.toLowerCase(Locale.ROOT).matches("application/json\\s*(;.*)?")) {
            call.refuseUnread(415, Map.of("error", "Content-Type must be application/json"));
            return;
        }
        RollingWindow refusals = isPublic ? peerWindow(ClientAddress.of(call.peer(), call.headers("X-Forwarded-For"),
                options.trustedProxy())) : loopbackRefusals;
        // loopback: the capability first, so the failures of others never throttle its holder (a
        // 256-bit secret: a guesser gains nothing from the check); wrong ones meet their own window
        if (!isPublic && !capabilityMatches(call.header("Authorization"))) {
            if (badCapabilities.full()) {
                options.metrics().throttled(AuthMetrics.Face.LOOPBACK, AuthMetrics.ThrottleWindow.CAPABILITY);
                call.refuseUnread(429, Map.of("error", "too many bad capabilities - wait a minute"));
                return;
            }
            badCapabilities.record();
            LOG.warn("token exchange: a request with a missing or wrong capability");
            call.refuseUnread(401, Map.of("error", "missing or wrong capability"));
            return;
        }
        if (refusals.full()) { // throttled: no token or secret is checked
            options.metrics().throttled(call.face().tag(), AuthMetrics.ThrottleWindow.REFUSALS);
            call.refuseUnread(429, Map.of("error", "too many refused exchanges - wait a minute and retry"));
            return;
        }
        if (call.declaredLength() > MAX_BODY) {
            call.refuseUnread(413, Map.of("error", "body over 64 KiB"));
            return;
        }
        call.readBody(MAX_BODY, body -> guarded(call, route, () -> work.run(body, refusals)),
                () -> call.refuseUnread(413, Map.of("error", "body over 64 KiB")));
    }

    private RollingWindow peerWindow(String client) {
        synchronized (peers) {
            return peers.computeIfAbsent(client, k -> new RollingWindow(options.limits().refusalsPerMinute(), MINUTE, options.clock()));
        }
    }

    private void exchange(HttpCall call, boolean isPublic, byte[] body, RollingWindow refusals) {
        ExchangeArms.Request request = ClosedJson.read(ClosedJson.cotal(), body, ExchangeArms.Request.class, "exchange");
        validate(request);
        if (!isPublic) {
            finish(call, request, refusals);
            return;
        }
        if (!inFlight.tryAcquire()) {
            call.send(503, Map.of("error", "busy - retry shortly"));
            return;
        }
        Running running = new Running();
        Scheduler.Task late = call.face().schedule(() -> {
            call.send(503, Map.of("error", "request deadline exceeded"));
            running.interrupt();
        }, options.limits().deadline().toMillis());
        try {
            running.enter();
            finish(call, request, refusals);
        } finally {
            running.exit();
            late.cancel();
            inFlight.release();
        }
    }

    /** The thread doing a public exchange, interrupted when the deadline answers first. */
    private static final class Running {
        private Thread thread;
        private boolean done;

        synchronized void enter() {
            thread = Thread.currentThread();
        }

        synchronized void interrupt() {
            if (thread != null && !done) {
                thread.interrupt();
            }
        }

        void exit() {
            synchronized (this) {
                done = true;
            }
            Thread.interrupted(); // a late interrupt must not reach the pool's next job
        }
    }

    private void finish(HttpCall call, ExchangeArms.Request request, RollingWindow refusals) {
        try {
            ExchangeArms.Response response = arms.exchange(request);
            call.send(200, Map.of("token", response.token(), "owner", response.owner(), "exp", response.exp()));
        } catch (CotalException e) {
            int status = Refusals.status(e.code());
            if (status == 401 || status == 403 || status == 404 || status == 409) {
                LOG.info("auth-service: refused an exchange: {}", Refusals.safe(e.getMessage(), e.code()));
                refusals.record(); // counted: the next one past the limit is refused before any check
            }
            call.send(status, Map.of("error", Refusals.message(e, "/exchange")), Refusals.retryAfter(e));
        }
    }

    /**
     * {@code POST /manager-service-authority} (SPEC §14.6): refusals 401, 403, 404 and 409 count in
     * the face's refusal window like an exchange's; the public face shares the in-flight budget.
     */
    private void managerAuthority(HttpCall call, boolean isPublic, byte[] body, RollingWindow refusals) {
        if (isPublic && !inFlight.tryAcquire()) {
            call.send(503, Map.of("error", "busy - retry shortly"));
            return;
        }
        try {
            call.send(200, ManagerAuthorityRoute.issue(options.plane(), body));
        } catch (CotalException e) {
            int status = Refusals.status(e.code());
            if (status == 401 || status == 403 || status == 404 || status == 409) {
                LOG.info("auth-service: refused a manager service authority: {}", Refusals.safe(e.getMessage(), e.code()));
                refusals.record();
            }
            call.send(status, Map.of("error", Refusals.message(e, ManagerAuthorityRoute.ISSUE)));
        } finally {
            if (isPublic) {
                inFlight.release();
            }
        }
    }

    /** The run routes (SPEC §14.7): the exchange's in-flight budget and deadline on the public face. */
    private void runs(HttpCall call, boolean isPublic, String path, byte[] body, RollingWindow refusals) {
        if (isPublic && !inFlight.tryAcquire()) {
            call.send(503, Map.of("error", "busy - retry shortly"));
            return;
        }
        Running running = new Running();
        Scheduler.Task late = isPublic ? call.face().schedule(() -> {
            call.send(503, Map.of("error", "request deadline exceeded"));
            running.interrupt();
        }, options.limits().deadline().toMillis()) : null;
        try {
            running.enter();
            call.send(200, RunRoute.serve(options.plane(), path, body));
        } catch (CotalException e) {
            int status = Refusals.status(e.code());
            if (status == 401 || status == 403) {
                refusals.record(); // a refused bearer counts like a refused exchange
            }
            call.send(status, Map.of("error", Refusals.message(e, path)));
        } finally {
            running.exit();
            if (late != null) {
                late.cancel();
            }
            if (isPublic) {
                inFlight.release();
            }
        }
    }

    private void host(HttpCall call, boolean isPublic, byte[] body, boolean authority) {
        Optional<ServiceEndpointHost> endpoints = options.plane().serviceEndpoints();
        if (endpoints.isEmpty()) {
            call.send(404, Map.of("error", "this space hosts no service endpoints"));
            return;
        }
        if (isPublic && !inFlight.tryAcquire()) { // the public face shares the exchange's in-flight budget
            call.send(503, Map.of("error", "busy - retry shortly"));
            return;
        }
        try {
            HostRoute.Answer answer = hostRoute.serve(endpoints.get(), body, !isPublic, authority);
            call.sendRaw(answer.status(), answer.body(), answer.retryAfterSeconds());
        } finally {
            if (isPublic) {
                inFlight.release();
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
        request.serving(); // the view and the instance it names agree, before any check
    }

    /** The loopback face's health (SPEC §13.21), with the proof of the capability when challenged (SPEC §13.17). */
    private Map<String, Object> health(String challenge) {
        return HealthDocument.loopback(options.plane().space(), options.plane().health(),
                HealthProof.wellFormed(challenge) ? HealthProof.proof(capability, challenge) : null);
    }

    private boolean capabilityMatches(String authorization) {
        if (authorization == null || !authorization.startsWith("Bearer ")) {
            return false;
        }
        return MessageDigest.isEqual(capability, authorization.substring(7).getBytes(StandardCharsets.US_ASCII));
    }
}
