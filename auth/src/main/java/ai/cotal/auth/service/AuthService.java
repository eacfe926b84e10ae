package ai.cotal.auth.service;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.callout.AuthCallout;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.Granter;
import ai.cotal.auth.ServiceEndpointHost;
import ai.cotal.auth.IdpPin;
import ai.cotal.auth.SpaceProvisioning;
import ai.cotal.auth.callout.CalloutOptions;
import ai.cotal.auth.exchange.ExchangeOptions;
import ai.cotal.auth.exchange.TokenExchange;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.secrets.SecretStore;
import io.nats.client.Connection;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stock auth service of one space ({@code startAuthService}), embeddable: it loads its
 * material from the secret store, opens the authority plane, starts the auth callout, then the
 * HTTP faces (token exchange, JWKS, health and the service-endpoint routes); the capability file
 * {@code auth-service.json} appears last and is the readiness signal. It installs no signal
 * handlers and never exits the process. A fenced plane makes it {@code UNAVAILABLE}; every door
 * then refuses with {@code unavailable}. Thread-safe.
 */
public final class AuthService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AuthService.class);

    /** Where the service stands. */
    public enum State { READY, UNAVAILABLE, DRAINING, CLOSED }

    private final String space;
    private final AuthAuthorityPlane plane;
    private final AuthCallout callout;
    private final TokenExchange exchange;
    private volatile State state = State.READY;
    private volatile String cause;
    private final java.util.concurrent.CompletableFuture<String> ended = new java.util.concurrent.CompletableFuture<>();

    private final Optional<ServiceEndpointHost> host;

    private AuthService(String space, AuthAuthorityPlane plane, AuthCallout callout, TokenExchange exchange) {
        this.space = space;
        this.plane = plane;
        this.callout = callout;
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
     * Starts the service. A missing secret kind fails before any broker connection; any later
     * failure releases what was taken, in reverse.
     */
    public static AuthService start(AuthServiceOptions options) {
        ServiceMaterial.Loaded material = preflight(options);
        options.oidc().ifPresent(oidc -> IdpPin.pinOidc(options.stateDir(), oidc.issuer(), oidc.clientId(),
                oidc.algorithms())); // before anything is taken (SPEC §13.18)
        Deque<AutoCloseable> taken = new ArrayDeque<>();
        try {
            AuthAuthorityPlane opened = AuthAuthorityPlane.open(AuthPlaneOptions.builder().settings(options.settings())
                    .signer(material.signer()).build());
            taken.push(opened);
            CalloutOptions.Builder responder = CalloutOptions.builder().servers(options.servers())
                    .callout(material.callout()).plane(opened.calloutAuthority()).signer(material.signer())
                    .clock(options.clock());
            ExchangeOptions.Builder faces = ExchangeOptions.builder().plane(opened).stateDir(options.stateDir())
                    .loopbackPort(options.loopbackPort()).clock(options.clock())
                    .jwksFetchesPerMinute(options.jwksFetchesPerMinute());
            options.settings().meterSink().ifPresent(sink -> { // the plane's sink, for the callout and the faces (SPEC §13.21)
                responder.meterSink(sink).meterSpaceTag(options.settings().meterSpaceTag());
                faces.meterSink(sink).meterSpaceTag(options.settings().meterSpaceTag());
            });
            AuthCallout callout = AuthCallout.start(responder.build());
            taken.push(callout);
            faces.callout(callout);
            options.publicAddress().ifPresent(faces::publicAddress);
            options.jwks().ifPresent(faces::jwks);
            options.trustedProxy().ifPresent(faces::trustedProxy);
            if (options.publicAddress().isPresent()) { // the join bundle (SPEC §13.17)
                faces.mesh(options.servers().get(0), material.callout().sentinelCreds());
                options.advertisedServer().ifPresent(faces::advertisedServer);
                options.agentProvisioningUrl().ifPresent(faces::agentProvisioningUrl);
            }
            TokenExchange exchange = TokenExchange.start(faces.build());
            taken.push(exchange);
            AuthService service = new AuthService(options.space(), opened, callout, exchange);
            opened.fenced().thenAccept(service::unavailable);
            LOG.info("auth-service: space {} ready at {}", options.space(), exchange.loopbackUrl());
            return service;
        } catch (RuntimeException e) {
            while (!taken.isEmpty()) {
                try {
                    taken.pop().close();
                } catch (Exception suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
    }

    /**
     * The start checks (SPEC §13.18), before anything is taken: the store is the expected one;
     * every secret is there ({@link SpaceProvisioning#require}, naming every missing key); the issuer is this space's; the
     * service keys sign for the expected data account; the broker admits the callout credential.
     */
    private static ServiceMaterial.Loaded preflight(AuthServiceOptions options) {
        SecretStore store = options.secretStore();
        options.storeIdentity().ifPresent(expected -> {
            if (!store.identity().map(expected::equals).orElse(false)) {
                throw new CotalException(ErrorCode.FAILED_PRECONDITION, "secretStore: it is not the expected store ("
                        + (store.identity().isPresent() ? "it declares another identity" : "it declares no identity")
                        + "); a misplaced store would serve other keys or none");
            }
        });
        // every secret the service and its plane need, all missing ones named at once (SPEC §13.22)
        SpaceProvisioning.require(store, options.space(), options.signer().isPresent()
                ? SpaceProvisioning.Role.SERVICE_WITH_REMOTE_SIGNER : SpaceProvisioning.Role.SERVICE);
        ServiceMaterial.Loaded material = ServiceMaterial.load(store, options.space(), options.signer().orElse(null));
        options.dataAccount().ifPresent(expected -> {
            if (!expected.equals(material.signer().accountPublicKey())) {
                throw new CotalException(ErrorCode.FAILED_PRECONDITION, "dataAccount: the service keys of space \""
                        + options.space() + "\" sign for account " + material.signer().accountPublicKey()
                        + ", not the expected " + expected);
            }
        });
        try (Connection probe = NatsConnector.builder().servers(options.servers()).creds(material.callout().calloutCreds())
                .label("cotal:auth-service-check:" + options.space()).timeout(Duration.ofSeconds(5)).build().connect()) {
            probe.flush(Duration.ofSeconds(5));
        } catch (CotalException e) {
            throw new CotalException(e.code(), "the broker does not admit the callout credential of space \""
                    + options.space() + "\" (" + e.code().wire() + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CotalException(ErrorCode.UNAVAILABLE, "interrupted while checking the broker", e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "the broker did not answer the callout credential's check"
                    + " of space \"" + options.space() + "\"", e);
        }
        return material;
    }

    private void unavailable(String why) {
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

    public Optional<String> publicUrl() {
        return exchange.publicUrl();
    }

    /**
     * Stops the HTTP faces, closes the plane (releasing its claim), then the callout. When the
     * plane's release cannot reach the broker it throws {@code release-unreachable} and stays
     * {@code DRAINING}: call {@code close()} again.
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
        plane.close(); // release-unreachable leaves DRAINING with the callout still answering: retry close()
        callout.close();
        state = State.CLOSED;
        LOG.info("auth-service: space {} closed", space);
    }
}
