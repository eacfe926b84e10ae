package ai.cotal.auth.exchange;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import com.nimbusds.jose.jwk.JWKSet;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Fetches a JWKS over HTTP (JDK client, no redirects, 5 s timeout, 64 KiB) and keeps it for five
 * minutes; {@link #fresh} fetches without the cache. Thread-safe.
 */
public final class HttpJwksSource implements JwksSource {
    private static final Duration KEEP = Duration.ofMinutes(5);
    private static final int MAX_BYTES = 64 * 1024;

    private record Cached(JWKSet keys, Instant until) {
    }

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER).build();
    private final Map<URI, Cached> cache = new ConcurrentHashMap<>();
    private final Clock clock;

    public HttpJwksSource(Clock clock) {
        this.clock = clock;
    }

    @Override
    public JWKSet keys(URI jwksUri) {
        Cached cached = cache.get(jwksUri);
        if (cached != null && clock.instant().isBefore(cached.until())) {
            return cached.keys();
        }
        JWKSet keys = fresh(jwksUri);
        cache.put(jwksUri, new Cached(keys, clock.instant().plus(KEEP)));
        return keys;
    }

    @Override
    public JWKSet fresh(URI jwksUri) {
        try {
            HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(jwksUri).timeout(Duration.ofSeconds(5))
                    .header("Accept", "application/json").GET().build(), HttpResponse.BodyHandlers.ofByteArray());
            if (response.statusCode() != 200 || response.body().length > MAX_BYTES) {
                throw new CotalException(ErrorCode.UNAVAILABLE, "the identity provider's JWKS answered "
                        + response.statusCode());
            }
            return JWKSet.parse(new String(response.body(), StandardCharsets.UTF_8));
        } catch (CotalException e) {
            throw e;
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new CotalException(ErrorCode.UNAVAILABLE, "cannot fetch the identity provider's JWKS ("
                    + e.getClass().getSimpleName() + ")", e);
        }
    }
}
