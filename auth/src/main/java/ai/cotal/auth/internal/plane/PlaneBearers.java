package ai.cotal.auth.internal.plane;

import ai.cotal.auth.BearerClaims;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.Bearers;

/** The plane's {@link Bearers}: each call first refuses unless the plane is serving. */
final class PlaneBearers implements Bearers {
    private final Runnable refuseIfUnavailable;
    private final BearerIssuer issuer;
    private final BearerVerifier verifier;

    PlaneBearers(Runnable refuseIfUnavailable, BearerIssuer issuer, BearerVerifier verifier) {
        this.refuseIfUnavailable = refuseIfUnavailable;
        this.issuer = issuer;
        this.verifier = verifier;
    }

    @Override
    public String issue(BearerRequest request) {
        refuseIfUnavailable.run();
        return issuer.issue(request);
    }

    @Override
    public BearerClaims verify(String token) {
        refuseIfUnavailable.run();
        return verifier.verify(token);
    }

    @Override
    public String jwks() {
        refuseIfUnavailable.run();
        return issuer.jwks();
    }
}
