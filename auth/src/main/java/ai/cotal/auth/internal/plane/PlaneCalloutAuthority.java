package ai.cotal.auth.internal.plane;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.BearerClaims;
import ai.cotal.auth.Bearers;
import ai.cotal.auth.ConnectAttempt;
import ai.cotal.auth.ConnectCredentials;
import ai.cotal.auth.IssuedCallers;
import ai.cotal.auth.callout.CalloutAuthority;
import ai.cotal.core.issued.Ceiling;

/** What the callout asks of the plane, answered by the plane's facets. */
record PlaneCalloutAuthority(String space, Bearers bearers, ConnectCredentials credentials, IssuedCallers issued)
        implements CalloutAuthority {
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
}
