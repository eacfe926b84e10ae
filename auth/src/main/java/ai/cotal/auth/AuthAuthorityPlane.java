package ai.cotal.auth;

import ai.cotal.auth.callout.CalloutAuthority;
import ai.cotal.auth.internal.plane.AuthorityPlaneImpl;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The single owner of one space's authorization state in this process: it holds the space's
 * plane claim, answers connect authorizations from the actor ledger and the credential rows,
 * issues bearers and fences itself when it loses one of its scanner connections. Opened by the
 * embedder with {@link #open(AuthPlaneOptions)} ({@code openAuthAuthorityPlane}) and closed by
 * it; the plane never exits the process or installs signal handlers.
 *
 * <p>Thread-safe. Once {@link #fenced()} has completed, or {@link #close()} has begun, every
 * method refuses with {@code unavailable}.
 */
public interface AuthAuthorityPlane extends CalloutAuthority, AutoCloseable {

    /**
     * Opens the plane: writer connection and store check, reader, barrier, two scanners, the plane
     * claim, then activation. Any failure unwinds what was opened, in reverse, and throws; there is
     * no degraded mode.
     *
     * @throws PlaneClaimRefusal when another plane holds the space or its state cannot be decided
     */
    static AuthAuthorityPlane open(AuthPlaneOptions options) {
        return AuthorityPlaneImpl.open(options);
    }

    /**
     * Provisions the keys a space's plane signs and derives with, each create-only (SPEC §13.14):
     * the bearer issuer's key ({@code space.<hex>/issuer.json}) and the owner secret
     * ({@code space.<hex>/owner-secret.json}). A key already there is kept exactly as it is, so
     * provisioning twice, or two provisioners racing, never re-keys an owner. The stock service
     * ({@code AuthService.start}) never creates them: it refuses to start without them.
     */
    static void provisionKeys(ai.cotal.core.secrets.SecretStore store, String space) {
        ai.cotal.core.trust.SpaceName.check(space, "space");
        BearerIssuer.loadOrCreate(store, space, java.time.Clock.systemUTC());
        ai.cotal.auth.internal.plane.OwnerSecret.loadOrCreate(store, space);
    }

    /** The space this plane owns. */
    String space();

    /** The generation and id of the claim this plane holds. */
    ClaimInfo claim();

    /** The plane claim this plane holds. */
    record ClaimInfo(long generation, String claimId) {
    }

    /**
     * Authorizes a connect: the actor's ledger row exists, the requested scope is within it, the
     * lifecycle uid is the row's, and the named credential row is live for that principal.
     *
     * @throws ai.cotal.core.CotalException {@code permission-denied} naming the reason
     */
    ActorRow authorizeConnect(ConnectAttempt attempt);

    /** Writes a credential row for a granted principal at its current lifecycle uid; returns its id. */
    String mintConnectCredential(String owner, String actor, String lifecycleUid);

    /** Removes a credential row: connects naming it are refused from now on. */
    void revokeCredential(String credentialId);

    /** The live credential ids, read by a sealed scan (the claim is checked before and after). */
    List<String> listCredentials();

    /** Signs a bearer with the space's issuer key. */
    String issueBearer(BearerIssuer.Request request);

    /** Verifies a bearer of this space ({@code unauthenticated} with the reason when it is refused). */
    BearerClaims verifyBearer(String token);

    /**
     * The issued-caller path (SPEC §13.15): the accepted row of {@code connId} is written with a
     * fresh generation the first time; a reconnect under the same connection id confirms it when
     * the principal, uid and ceiling are the same; anything else must reconnect under a new id.
     *
     * @return the ceiling granted
     */
    ai.cotal.core.issued.Ceiling issueUserCaller(BearerClaims bearer, String connId, ai.cotal.core.issued.Ceiling ceiling);

    /** Resolves an issued caller's accepted row, answering actor-ledger sources from this plane's ledger. */
    ai.cotal.core.issued.IssuedAuthority.Resolved resolveIssued(String token);

    /** The issuer's JWKS document. */
    String jwks();

    /** The ledger of this space: grants and revocations. */
    ActorLedger ledger();

    /** True iff the principal's row exists at exactly {@code lifecycleUid}. */
    boolean actorSourceIsLive(String owner, String actor, String lifecycleUid);

    /** The space's IdP pin, when one was set. */
    Optional<IdpPin> idpPin();

    /** The owner token of an IdP subject (the owner secret comes from the secret store). */
    String deriveOwner(String issuer, String subject);

    /** True when this plane was opened with service endpoints ({@link AuthPlaneOptions.Builder#serviceEndpoints}). */
    boolean serviceEndpointsEnabled();

    /** How long an in-process host call may take when the caller names no deadline. */
    java.time.Duration DEFAULT_HOST_DEADLINE = java.time.Duration.ofSeconds(10);

    /**
     * Answers a service-endpoint host request (SPEC §13.1) for a granter the caller has already
     * authenticated, within {@link #DEFAULT_HOST_DEADLINE}. {@code register} answers
     * {@code unsupported} here: admission goes through {@link #serviceEndpointAuthority}.
     *
     * @throws ai.cotal.core.CotalException {@code failed-precondition} when the plane was opened
     *         without service endpoints; {@code unavailable} once it fenced or began closing
     */
    default ai.cotal.servicehost.HostResult serviceEndpointHost(Granter granter,
            ai.cotal.servicehost.HostRequest request) {
        return serviceEndpointHost(granter, request, java.time.Instant.now().plus(DEFAULT_HOST_DEADLINE));
    }

    /**
     * Answers a service-endpoint host request by {@code deadline}: the invocation's effect
     * connection expires at that deadline rounded up to the whole second and is never renewed.
     */
    ai.cotal.servicehost.HostResult serviceEndpointHost(Granter granter, ai.cotal.servicehost.HostRequest request,
            java.time.Instant deadline);

    /**
     * Register admission (the service authority route): a registering daemon's request, for the
     * owner its proof names, by {@code deadline}.
     */
    ai.cotal.servicehost.HostResult serviceEndpointAuthority(Granter granter,
            ai.cotal.servicehost.HostRequest.Register request, java.time.Instant deadline);

    /** Register admission within {@link #DEFAULT_HOST_DEADLINE}. */
    default ai.cotal.servicehost.HostResult serviceEndpointAuthority(Granter granter,
            ai.cotal.servicehost.HostRequest.Register request) {
        return serviceEndpointAuthority(granter, request, java.time.Instant.now().plus(DEFAULT_HOST_DEADLINE));
    }

    /** Completes with the operator message when the plane fences itself after losing a scanner. */
    CompletableFuture<String> fenced();

    /**
     * Refuses new calls, closes the reader and scanners, releases the claim, then the barrier and
     * the writer. When the release cannot reach the broker it throws {@code release-unreachable}
     * and keeps the barrier and the claim: call {@code close()} again once the broker is back.
     */
    @Override
    void close();
}
