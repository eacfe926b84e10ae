package ai.cotal.auth;

import ai.cotal.core.issued.Ceiling;
import ai.cotal.core.issued.IssuedAuthority;

/**
 * The issued callers of a plane's space (SPEC §13.15): the accepted rows of connections the
 * callout admitted. Handed out by {@link AuthAuthorityPlane#issuedCallers()}.
 *
 * <p>Thread-safe. Once the plane fenced or began closing, every method refuses with
 * {@code unavailable}.
 */
public interface IssuedCallers {
    /**
     * Issues a user caller ({@code issueUserCaller}): the accepted row of {@code connId} is
     * written with a fresh generation the first time (charged to the plane's write budget); a
     * reconnect under the same connection id confirms it when the principal, uid and ceiling are
     * the same; anything else must reconnect under a new id.
     *
     * @return the ceiling granted
     */
    Ceiling issue(BearerClaims bearer, String connId, Ceiling ceiling);

    /**
     * Resolves an issued caller's accepted row ({@code resolveIssued}) with the plane's composed
     * source check (SPEC §13.15): actor-ledger sources from the plane's ledger, the space's other
     * authority rows through core's check on the issuer connection; a source of another space or
     * of another bucket is not live ({@code permission-denied}).
     */
    IssuedAuthority.Resolved resolve(String token);
}
