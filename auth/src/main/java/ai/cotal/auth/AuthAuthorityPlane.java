package ai.cotal.auth;

import ai.cotal.auth.internal.plane.AuthorityPlaneImpl;
import ai.cotal.core.id.Owner;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The single owner of one space's authorization state in this process: it holds the space's
 * plane claim, answers connect authorizations from the actor ledger and the credential rows,
 * issues bearers and fences itself when it loses one of its scanner connections. Opened by the
 * embedder with {@link #open(AuthPlaneOptions)} ({@code openAuthAuthorityPlane}) and closed by
 * it; the plane never exits the process or installs signal handlers. Its operations are grouped in
 * facets it hands out: {@link #credentials()}, {@link #bearers()}, {@link #issuedCallers()},
 * {@link #serviceEndpoints()} and {@link #lifecycles()}; with {@link AuthPlaneOptions.Builder#callout} it
 * answers the space's auth callout itself.
 *
 * <p>Thread-safe. Once {@link #fenced()} has completed, or {@link #close()} has begun, every
 * operation, on the plane or on a facet it handed out, refuses with {@code unavailable}; the
 * service-endpoint host's own rule is on {@link ServiceEndpointHost}. {@link #space()},
 * {@link #claim()}, {@link #fenced()}, {@link #closed()}, {@link #connections()} and {@link #health()}
 * never refuse.
 */
public interface AuthAuthorityPlane extends AutoCloseable {

    /**
     * Opens the plane of {@code options}' space and returns it once it holds the space's plane
     * claim. Before any connection the secret store must hold what
     * {@link SpaceProvisioning.Role#PLANE} needs, else {@code failed-precondition} naming every
     * missing key (the plane creates no key). The order: writer connection and store check, reader,
     * barrier, two scanners, the plane claim, then activation. Any failure unwinds what was opened,
     * in reverse, and throws; there is no degraded mode. Safe to call from any thread; one plane
     * per space at a time.
     *
     * @throws PlaneClaimRefusal when another plane holds the space or its state cannot be decided
     */
    static AuthAuthorityPlane open(AuthPlaneOptions options) {
        return AuthorityPlaneImpl.open(options);
    }

    /** The space this plane owns. */
    String space();

    /** The options this plane was opened with (never refuses). */
    AuthPlaneOptions options();

    /** The generation and id of the claim this plane holds. */
    ClaimInfo claim();

    /** The plane claim this plane holds. */
    record ClaimInfo(long generation, String claimId) {
    }

    /** The connect credentials: authorize a connect, mint, revoke and list credential rows. */
    ConnectCredentials credentials();

    /** The bearers: issue, verify, and the issuer's JWKS. */
    Bearers bearers();

    /** The issued callers: issue a user caller, resolve an accepted row. */
    IssuedCallers issuedCallers();


    /**
     * The service-endpoint host; empty when the plane was opened without service endpoints
     * ({@link AuthPlaneOptions.Builder#serviceEndpoints}).
     */
    Optional<ServiceEndpointHost> serviceEndpoints();

    /**
     * The lifecycles of this space (SPEC §14.1): heads, retirement of interactive and managed
     * lifecycles, activation of managed ones, and what the boot crash-resume did.
     */
    Lifecycles lifecycles();

    /**
     * The manager gate of this space (SPEC §14.3, §14.4): managers' registrar credentials, their
     * gates, the candidate verdict and the checks of a {@code manager-caller} connect.
     */
    ManagerAuthority managers();

    /**
     * Manager runs of this space (SPEC §14.7, §14.8): run admissions, attempts and the observed
     * served run requests a served attempt is bound to.
     */
    ManagerRuns managerRuns();

    /**
     * This plane's registration as the serving instance of endpoint {@code auth} (SPEC §14.2), as
     * its open made it. Never refuses.
     */
    PlaneRegistration registration();

    /**
     * Re-reads this plane's serving gate: open at this plane's process epoch and registration
     * revision → the registration. Anything else means a later plane of the same restart identity
     * registered: this plane fences itself ({@link #fenced()} completes) and the call refuses.
     *
     * @throws ai.cotal.core.CotalException {@code failed-precondition} when fenced by a later epoch,
     *     {@code unavailable} when already fenced or closing
     */
    PlaneRegistration observeRegistration();

    /** The actor ledger of this space: grant, revoke and read its actors' rows. */
    ActorLedger ledger();

    /** The space's IdP pin, when one was set, read fresh from the ledger's placement (SPEC §13.23). */
    Optional<IdpPin> idpPin();

    /**
     * Pins the space to the stock identity provider at {@code url} in the ledger's placement
     * (SPEC §13.14, §13.23; on files exactly {@link IdpPin#pin}): the same provider again answers
     * the pin there and writes nothing.
     *
     * @throws ai.cotal.core.CotalException {@code bad-request} naming {@code url};
     *     {@code failed-precondition} when pinned to another provider; {@code unavailable} when the
     *     plane is not open or the store does not answer
     */
    IdpPin pinIdp(String url);

    /**
     * Pins the space to an OpenID Connect provider in the ledger's placement (on files exactly
     * {@link IdpPin#pinOidc}), by {@link #pinIdp}'s rule; the discovery document is read only
     * when no pin stands.
     *
     * @throws ai.cotal.core.CotalException as {@link IdpPin#pinOidc}, and {@code unavailable} when
     *     the plane is not open or the store does not answer
     */
    IdpPin pinIdpOidc(String issuer, String clientId, List<String> algorithms);

    /** The owner of an IdP subject (the owner secret comes from the secret store). */
    Owner deriveOwner(String issuer, String subject);

    /**
     * Completes with the operator message when the plane fences itself after losing a scanner;
     * never on a deliberate {@link #close()}. Each call returns a new dependent future: completing
     * or cancelling it does not touch the plane.
     */
    CompletableFuture<String> fenced();

    /**
     * Completes when {@link #close()} has finished: every connection of the plane is closed and
     * the claim released (or found no longer this plane's). It never completes on a fence alone,
     * nor while a {@code release-unreachable} close keeps the barrier and the claim for a retry.
     * Each call returns a new dependent future: completing or cancelling it does not touch the
     * plane.
     */
    CompletableFuture<Void> closed();

    /**
     * The plane's own authority connections as they stand now (SPEC §13.12), in boot order:
     * writer, reader, barrier, issuer, discovery (only with service endpoints), ledger scanner,
     * records scanner. Each shows its role, connection name, status and, while connected, the
     * server id and cid; no secret. A read-only snapshot that never refuses: it answers on a
     * fenced plane (showing which connection was lost) and after close (every one closed).
     */
    List<PlaneConnection> connections();

    /**
     * Where the plane stands (SPEC §13.21): its state ({@code OPEN}, {@code FENCED} with the
     * fence's operator message, {@code CLOSING}, {@code CLOSED}), {@link #connections()}, and the
     * fill of the authority stores its budgeted writes go to, as the store-pressure signal last
     * read them (a reading older than 2 s is refreshed in the background; this never waits on the
     * broker). Never refuses; holds no secret.
     */
    PlaneHealth health();

    /**
     * Refuses new calls, closes the reader and scanners, releases the claim, then the barrier and
     * the writer; {@link #closed()} completes once that is done. When the release cannot reach the
     * broker it throws {@code release-unreachable} and keeps the barrier and the claim: call
     * {@code close()} again once the broker is back.
     */
    @Override
    void close();
}
