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
}
