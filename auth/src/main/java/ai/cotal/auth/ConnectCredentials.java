package ai.cotal.auth;

import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import java.util.List;

/**
 * The connect credentials of a plane's space (SPEC §13.14): credential rows a bearer names, and
 * the connect check against them and the actor ledger. Handed out by
 * {@link AuthAuthorityPlane#credentials()}.
 *
 * <p>Thread-safe. Once the plane fenced or began closing, every method refuses with
 * {@code unavailable}.
 */
public interface ConnectCredentials {
    /**
     * Authorizes a connect ({@code authorizeConnect}): the actor's ledger row exists, the requested
     * scope is within it, the lifecycle uid is the row's, and the named credential row is live for
     * that principal.
     *
     * @throws ai.cotal.core.CotalException {@code permission-denied} naming the reason
     */
    ActorRow authorize(ConnectAttempt attempt);

    /**
     * Writes a credential row for a granted principal at its current lifecycle uid
     * ({@code mintConnectCredential}); returns the credential (its id, the principal, the lifecycle
     * uid). Charged to the plane's write budget first.
     */
    ConnectCredential mint(Principal principal, LifecycleUid lifecycleUid);

    /** Removes a credential row ({@code revokeCredential}): connects naming it are refused from now on. */
    void revoke(CredentialId credentialId);

    /** The live credential ids ({@code listCredentials}), read by a sealed scan (the claim is checked before and after). */
    List<CredentialId> list();
}
