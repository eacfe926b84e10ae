package ai.cotal.auth.service;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.Granter;
import ai.cotal.auth.ServiceEndpointHost;
import ai.cotal.auth.IdpPin;
import ai.cotal.auth.PlaneClaimRefusal;
import ai.cotal.auth.PlaneHealth;
import ai.cotal.auth.exchange.ExchangeOptions;
import ai.cotal.auth.exchange.TokenExchange;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stock auth service of one space, embeddable: the HTTP faces (token exchange, JWKS, health,
 * the join bundle and the service-endpoint routes) on an authority plane the embedder opened and
 * keeps; the capability file {@code auth-service.json} appears last and is the readiness signal.
 * It installs no signal handlers and never exits the process. A fenced plane makes it
 * {@code UNAVAILABLE}; every door then refuses with {@code unavailable}. Thread-safe.
 *
 * <pre>{@code
 * try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(planeOptions);
 *      AuthService service = AuthService.start(plane, AuthServiceOptions.builder().build())) {
 *     ...
 * }
 * }</pre>
 */
public final class AuthService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AuthService.class);

    /** Where the service stands. */
    public enum State { READY, UNAVAILABLE, DRAINING, CLOSED }

    private final String space;
    private final AuthAuthorityPlane plane;
    private final TokenExchange exchange;
    private volatile State state = State.READY;
    private volatile boolean ownsPlane; // opened by open(): closed with the service
    private volatile String cause;
    private final java.util.concurrent.CompletableFuture<String> ended = new java.util.concurrent.CompletableFuture<>();

    private final Optional<ServiceEndpointHost> host;

    private AuthService(String space, AuthAuthorityPlane plane, TokenExchange exchange) {
        this.space = space;
        this.plane = plane;
        this.exchange = exchange;
        this.host = plane.serviceEndpoints().map(Hosted::new);
    }

    /** The service's own handle on its plane's host: every call asks the service's state first. */
    private final class Hosted implements ServiceEndpointHost {
        private final ServiceEndpointHost planeHost;

        Hosted(ServiceEndpointHost planeHost) {
            this.planeHost = planeHost;
        }

        @Override
        public HostResult serve(Granter granter, HostRequest request, Instant deadline) {
            refuseUnlessReady();
            return planeHost.serve(granter, request, deadline);
        }

        @Override
        public HostResult admit(Granter granter, HostRequest.Register request, Instant deadline) {
            refuseUnlessReady();
            return planeHost.admit(granter, request, deadline);
        }
    }

    /**
     * Starts the stock service on {@code plane}, which the caller opened and keeps (the service
     * takes no claim of its own and never closes the plane): the checks of {@code options} first
     * (the expected store, the expected data account), then the OpenID Connect pin when set, then
     * the HTTP faces; the capability file {@code auth-service.json} appears last and is the
     * readiness signal. The faces use the plane's state directory, clock and meter sink; the
     * public face's join bundle carries the sentinel of the plane's callout account
     * ({@link AuthPlaneOptions.Builder#callout}). Safe to call from any thread.
     *
     * @throws CotalException {@code failed-precondition} when a check fails or a public face is
     *         asked of a plane that answers no callout; {@code unavailable} when the plane is not
     *         open; any refusal of the faces' start (nothing stays bound)
     */
    public static AuthService start(AuthAuthorityPlane plane, AuthServiceOptions options) {
        if (plane == null || options == null) {
            throw CotalException.badRequest(plane == null ? "plane" : "options", "is required");
        }
        AuthPlaneOptions on = plane.options();
        preflight(plane, on, options);
        options.oidc().ifPresent(oidc -> plane.pinIdpOidc(oidc.issuer(), oidc.clientId(),
                oidc.algorithms())); // before the faces (SPEC §13.18)
        ExchangeOptions.Builder faces = ExchangeOptions.builder().plane(plane).stateDir(on.stateDir())
                .loopbackPort(options.loopbackPort()).clock(on.clock()).limits(options.limits())
                .jwksFetchesPerMinute(options.jwksFetchesPerMinute()).grantPolicy(options.grantPolicy().orElse(null));
        on.settings().meterSink().ifPresent(sink -> faces.meterSink(sink).meterSpaceTag(on.settings().meterSpaceTag()));
        options.publicAddress().ifPresent(faces::publicAddress);
        options.jwks().ifPresent(faces::jwks);
        options.trustedProxy().ifPresent(faces::trustedProxy);
        if (options.publicAddress().isPresent()) { // the join bundle (SPEC §13.17)
            faces.mesh(on.servers().get(0), on.callout().orElseThrow().sentinelCreds());
            options.advertisedServer().ifPresent(faces::advertisedServer);
            options.agentProvisioningUrl().ifPresent(faces::agentProvisioningUrl);
        }
        TokenExchange exchange = TokenExchange.start(faces.build());
        AuthService service = new AuthService(plane.space(), plane, exchange);
        plane.fenced().thenAccept(service::unavailable);
        LOG.info("auth-service: space {} ready at {}", plane.space(), exchange.loopbackUrl());
        return service;
    }

    /**
     * The one-call convenience: opens the plane of {@code plane} and starts the service on it, as
     * {@link #start(AuthAuthorityPlane, AuthServiceOptions)} does; the service then owns that
     * plane, and {@link #close()} closes it after the faces. A failed start closes the plane again.
     *
     * @throws PlaneClaimRefusal when another plane holds the space
     * @throws CotalException as the plane's open and {@link #start(AuthAuthorityPlane, AuthServiceOptions)} do
     */
    public static AuthService open(AuthPlaneOptions plane, AuthServiceOptions options) {
        if (options == null) {
            throw CotalException.badRequest("options", "is required");
        }
        AuthAuthorityPlane opened = AuthAuthorityPlane.open(plane);
        try {
            AuthService service = start(opened, options);
            service.ownsPlane = true;
            return service;
        } catch (RuntimeException e) {
            try {
                opened.close();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /**
     * The start checks (SPEC §13.18), before anything is bound: the plane is open; its store is the
     * expected one; its signer signs for the expected data account; a public face has a sentinel.
     */
    private static void preflight(AuthAuthorityPlane plane, AuthPlaneOptions on, AuthServiceOptions options) {
        if (plane.health().state() != PlaneHealth.State.OPEN) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "the authority plane of space \"" + plane.space()
                    + "\" is " + plane.health().state().label() + "; open it again");
        }
        SecretStore store = on.secretStore();
        options.storeIdentity().ifPresent(expected -> {
            if (!store.identity().map(expected::equals).orElse(false)) {
                throw new CotalException(ErrorCode.FAILED_PRECONDITION, "secretStore: it is not the expected store ("
                        + (store.identity().isPresent() ? "it declares another identity" : "it declares no identity")
                        + "); a misplaced store would serve other keys or none");
            }
        });
        options.dataAccount().ifPresent(expected -> {
            if (!expected.equals(on.signer().accountPublicKey())) {
                throw new CotalException(ErrorCode.FAILED_PRECONDITION, "dataAccount: the plane of space \""
                        + plane.space() + "\" signs for account " + on.signer().accountPublicKey()
                        + ", not the expected " + expected);
            }
        });
        if (options.publicAddress().isPresent() && on.callout().isEmpty()) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "publicAddress: the public face's join bundle carries"
                    + " the sentinel of the plane's callout account; open the plane with callout(...)");
        }
    }

    private synchronized void unavailable(String why) {
        if (state == State.CLOSED || state == State.DRAINING) {
            return; // the plane outlives a closed service
        }
        cause = why;
        state = State.UNAVAILABLE;
        try {
            exchange.withdrawDiscovery(); // a fenced service is not ready: its readiness file goes (SPEC §13.18)
        } catch (CotalException e) {
            LOG.warn("auth-service: space {}: the capability file could not be withdrawn after the fence", space);
        }
        ended.complete(why);
    }

    /** Completes with the cause once the service became {@code UNAVAILABLE} (its plane fenced). */
    public java.util.concurrent.CompletableFuture<String> unavailable() {
        return ended;
    }

    public State state() {
        return state;
    }

    /** Why the service is unavailable, when it is. */
    public Optional<String> cause() {
        return Optional.ofNullable(cause);
    }

    private void refuseUnlessReady() {
        if (state != State.READY) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "auth-service context of space \"" + space
                    + "\" is not ready (" + state.name().toLowerCase(java.util.Locale.ROOT) + ")");
        }
    }

    /**
     * The plane this service owns, for the embedder's own ledger, credential, bearer and
     * service-endpoint operations (prefer {@link #serviceEndpoints()}, which also follows the
     * service's state); {@code unavailable} unless ready.
     */
    public AuthAuthorityPlane plane() {
        refuseUnlessReady();
        return plane;
    }

    /**
     * The service-endpoint host of this service (SPEC §13.18), present when it was started with
     * {@code serviceEndpoints}: the in-process twin of its two routes, for granters the embedder
     * has authenticated. The handle may be kept: each call refuses {@code unavailable} ("not
     * ready") unless the service is {@code READY}, so a handle taken before a fence, a drain or a
     * close answers nothing after it (writes included: nothing is bound), and is otherwise the
     * plane's host ({@link AuthAuthorityPlane#serviceEndpoints()}). Thread-safe.
     */
    public Optional<ServiceEndpointHost> serviceEndpoints() {
        return host;
    }

    public String loopbackUrl() {
        return exchange.loopbackUrl();
    }

    /**
     * The loopback face's capability: its POSTs (the exchange, the service-endpoint routes) need
     * {@code Authorization: Bearer <capability>}. The same value {@code auth-service.json} holds;
     * a secret: never log it.
     */
    public String capability() {
        return exchange.loopbackCapability();
    }

    public Optional<String> publicUrl() {
        return exchange.publicUrl();
    }

    /**
     * Stops the HTTP faces and withdraws the capability file. A plane the caller opened stays open
     * (its owner closes it); a plane {@link #open} opened is closed next, releasing its claim: when
     * that release cannot reach the broker it throws {@code release-unreachable} and the service
     * stays {@code DRAINING}; call {@code close()} again. Idempotent once closed.
     */
    @Override
    public synchronized void close() {
        if (state == State.CLOSED) {
            return;
        }
        if (state != State.DRAINING) {
            state = State.DRAINING;
            exchange.close();
        }
        if (ownsPlane) {
            plane.close(); // release-unreachable leaves DRAINING: retry close()
        }
        state = State.CLOSED;
        LOG.info("auth-service: space {} closed", space);
    }
}
