package ai.cotal.auth.internal.callout;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.BearerClaims;
import ai.cotal.auth.ConnectAttempt;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
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

    /**
     * Completes, with the reason, once this authority can only refuse from then on (a fenced
     * plane, a callout replica whose connections failed): its responder then leaves the queue
     * group so the space's other responders take every request (SPEC §13.16). This default never
     * completes.
     */
    default java.util.concurrent.CompletableFuture<String> stopped() {
        return new java.util.concurrent.CompletableFuture<>();
    }

    /** Verifies a bearer of this space ({@code unauthenticated} with the reason when refused). */
    BearerClaims verifyBearer(String token);

    /** Authorizes a connect ({@code permission-denied} naming the reason). */
    ActorRow authorizeConnect(ConnectAttempt attempt);

    /** Issues (or confirms) the accepted row of an issued caller; returns the ceiling granted. */
    Ceiling issueUserCaller(BearerClaims bearer, String connId, Ceiling ceiling);

    /**
     * The manager gate of a {@code manager-caller} connect (SPEC §14.4): the owner's candidate
     * manager instance, selected and authorized now; {@code permission-denied} (or
     * {@code failed-precondition} when several are candidates) otherwise. This default is a callout
     * replica's (SPEC §13.19): it cannot read the manager gate and refuses.
     */
    default String authorizeManagerCaller(BearerClaims bearer) {
        throw new CotalException(ErrorCode.PERMISSION_DENIED, "a callout replica cannot check the manager gate");
    }

    /**
     * {@code verifySession} of a {@code session-caller} connect (SPEC §14.5): the session its bearer
     * names, checked now ({@code permission-denied} with the reason otherwise). This default is a
     * callout replica's (SPEC §13.19): it cannot read the manager gate and refuses.
     */
    default ai.cotal.auth.ManagerAuthority.Session verifySession(BearerClaims bearer) {
        throw new CotalException(ErrorCode.PERMISSION_DENIED, "a callout replica cannot check a session");
    }

    /**
     * The service-endpoint access of a connect, read now (SPEC §13.16): a serving bearer's instance
     * once its gate and assignment admit it ({@code permission-denied} with the reason otherwise),
     * a plain connect's active caller grants. This default is a callout replica's (SPEC §13.19): it
     * refuses a serving bearer and gives callers no grant.
     */
    default EndpointAccess endpointAccess(BearerClaims bearer, ActorRow row) {
        if (bearer.serving().isPresent()) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, "a callout replica cannot issue a service-endpoint"
                    + " connection");
        }
        return EndpointAccess.NONE;
    }

    /**
     * Records a connect about to be admitted with {@code access} so a revoke can close it; refuses
     * ({@code permission-denied}) when its instance or a grant was revoked while the connect was
     * checked. This default records nothing.
     */
    default void admitted(LiveConnection connection, EndpointAccess access) {
    }

    /**
     * Records a connect about to be admitted at {@code row}'s lifecycle so a retirement can close it
     * (SPEC §14.1); refuses ({@code permission-denied}) when that lifecycle was retired while the
     * connect was checked. This default records nothing.
     */
    default void admittedAt(LiveConnection connection, ActorRow row) {
    }
}
