package ai.cotal.auth.internal.plane;

import ai.cotal.auth.BearerClaims;
import ai.cotal.auth.IssuedCallers;
import ai.cotal.core.issued.Ceiling;
import ai.cotal.core.issued.IssuedAuthority;

/** The plane's {@link IssuedCallers}: each call first refuses unless the plane is serving. */
final class PlaneIssuedCallers implements IssuedCallers {
    private final Runnable refuseIfUnavailable;
    private final IssuedCallerRows rows;

    PlaneIssuedCallers(Runnable refuseIfUnavailable, IssuedCallerRows rows) {
        this.refuseIfUnavailable = refuseIfUnavailable;
        this.rows = rows;
    }

    @Override
    public Ceiling issue(BearerClaims bearer, String connId, Ceiling ceiling) {
        refuseIfUnavailable.run();
        return rows.issue(bearer, connId, ceiling);
    }

    @Override
    public IssuedAuthority.Resolved resolve(String token) {
        refuseIfUnavailable.run();
        return rows.resolve(token);
    }
}
