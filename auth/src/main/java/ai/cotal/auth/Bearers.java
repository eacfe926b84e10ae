package ai.cotal.auth;

/**
 * The bearers of a plane's space, signed with the space's issuer key (SPEC §13.14). Handed out by
 * {@link AuthAuthorityPlane#bearers()}.
 *
 * <p>Thread-safe. Once the plane fenced or began closing, every method refuses with
 * {@code unavailable}.
 */
public interface Bearers {
    /**
     * Signs a bearer of {@code request}'s kind with the space's issuer key ({@code issueBearer}); the
     * request checked its parts when it was built, so only an unavailable plane refuses here.
     */
    String issue(BearerRequest request);

    /**
     * Verifies a bearer of this space ({@code verifyBearer}, SPEC §13.14): the one way to check one;
     * {@code unauthenticated} with the reason when refused.
     */
    BearerClaims verify(String token);

    /** The issuer's JWKS document. */
    String jwks();
}
