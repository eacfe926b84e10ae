package ai.cotal.auth.exchange;

import com.nimbusds.jose.jwk.JWKSet;
import java.net.URI;

/**
 * Where the exchange finds the pinned identity provider's keys. {@link HttpJwksSource} fetches
 * the pinned {@code jwksUri} and caches it; embedders may supply keys they already hold.
 */
@FunctionalInterface
public interface JwksSource {
    /** The key set at {@code jwksUri}; throws {@code unavailable} when it cannot be had. */
    JWKSet keys(URI jwksUri);

    /**
     * The key set at {@code jwksUri} as the provider serves it now, bypassing any cache: what an
     * oidc pin's rate-limited refresh asks for (SPEC §13.17). Default: {@link #keys}.
     */
    default JWKSet fresh(URI jwksUri) {
        return keys(jwksUri);
    }
}
