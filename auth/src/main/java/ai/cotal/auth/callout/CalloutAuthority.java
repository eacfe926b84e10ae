package ai.cotal.auth.callout;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.BearerClaims;
import ai.cotal.auth.ConnectAttempt;
import ai.cotal.core.issued.Ceiling;

/**
 * What the auth callout asks of an authority: verify a bearer, authorize a connect against the
 * ledger and the credential rows, and issue a caller's accepted row. The authority plane hands
 * one out ({@code AuthAuthorityPlane.calloutAuthority()}); a callout replica's read-side authority
 * ({@code ai.cotal.auth.service.CalloutReplica}) is the other. Implementations are thread-safe.
 */
public interface CalloutAuthority {
    /** The space this authority answers for. */
    String space();

    /** Verifies a bearer of this space ({@code unauthenticated} with the reason when refused). */
    BearerClaims verifyBearer(String token);

    /** Authorizes a connect ({@code permission-denied} naming the reason). */
    ActorRow authorizeConnect(ConnectAttempt attempt);

    /** Issues (or confirms) the accepted row of an issued caller; returns the ceiling granted. */
    Ceiling issueUserCaller(BearerClaims bearer, String connId, Ceiling ceiling);
}
