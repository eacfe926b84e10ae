package ai.cotal.auth.internal.plane;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.BearerClaims;
import ai.cotal.auth.Bearers;
import ai.cotal.auth.ConnectAttempt;
import ai.cotal.auth.ConnectCredentials;
import ai.cotal.auth.IssuedCallers;
import ai.cotal.auth.internal.callout.CalloutAuthority;
import ai.cotal.auth.internal.callout.EndpointAccess;
import ai.cotal.auth.internal.callout.LiveConnection;
import ai.cotal.auth.internal.endpoint.ConnectChecks;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.issued.Ceiling;

/**
 * What the callout asks of the plane, answered by the plane's facets; {@code connects} is null
 * when the plane hosts no service endpoints (then it issues no serving connection and no grant).
 * {@code fenced} is the plane's fatal latch: once it completes the plane refuses every connect,
 * so its responders leave the queue group ({@link #stopped()}).
 */
record PlaneCalloutAuthority(String space, Bearers bearers, ConnectCredentials credentials, IssuedCallers issued,
        ConnectChecks connects, LiveConnectionRegister live, LifecycleConnections lifecycles,
        ai.cotal.auth.ManagerAuthority managers, java.util.concurrent.CompletableFuture<String> fenced)
        implements CalloutAuthority {
    @Override
    public java.util.concurrent.CompletableFuture<String> stopped() {
        return fenced.copy();
    }

    @Override
    public BearerClaims verifyBearer(String token) {
        return bearers.verify(token);
    }

    @Override
    public ActorRow authorizeConnect(ConnectAttempt attempt) {
        return credentials.authorize(attempt);
    }

    @Override
    public Ceiling issueUserCaller(BearerClaims bearer, String connId, Ceiling ceiling) {
        return issued.issue(bearer, connId, ceiling);
    }

    /**
     * {@code selectManagerInstance} (the instance the bearer names, else the owner's one candidate)
     * then {@code authorizeManagerCaller} (SPEC §14.4), at every connect.
     */
    @Override
    public String authorizeManagerCaller(BearerClaims bearer) {
        ai.cotal.core.id.InstanceId instanceId = managers.selectInstance(bearer.owner(), bearer.managerInstanceId());
        managers.authorizeCaller(bearer.owner(), instanceId);
        return instanceId.value();
    }

    /** {@code verifySession} (SPEC §14.5), at every connect. */
    @Override
    public ai.cotal.auth.ManagerAuthority.Session verifySession(BearerClaims bearer) {
        return managers.verifySession(bearer.principal(), bearer.sessionGrant().orElseThrow(() ->
                CotalException.badRequest("sessionGrant", "required with the view session-caller")));
    }

    @Override
    public EndpointAccess endpointAccess(BearerClaims bearer, ActorRow row) {
        if (bearer.serving().isPresent()) {
            if (connects == null) {
                throw new CotalException(ErrorCode.PERMISSION_DENIED, "view: this space hosts no service endpoints");
            }
            connects.checkServing(row.owner().value(), bearer.serving().get());
            return EndpointAccess.serving(bearer.serving().get());
        }
        if (connects == null || bearer.view().isPresent()) {
            return EndpointAccess.NONE;
        }
        return EndpointAccess.callerGrants(connects.callerGrants(row.owner().value(), row.actor().value(), row.lifecycleUid().value()));
    }

    @Override
    public void admitted(LiveConnection connection, EndpointAccess access) {
        live.admit(connection, access);
    }

    @Override
    public void admittedAt(LiveConnection connection, ActorRow row) {
        lifecycles.admit(connection, row.owner().value(), row.actor().value(), row.lifecycleUid().value());
    }
}
