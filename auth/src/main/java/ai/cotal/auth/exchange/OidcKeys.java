package ai.cotal.auth.exchange;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKMatcher;
import com.nimbusds.jose.jwk.JWKSelector;
import com.nimbusds.jose.jwk.JWKSet;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * The keys of an oidc pin (SPEC §13.17): the pinned {@code jwksUri} fetched on first use and kept
 * five minutes; a {@code kid} the kept set lacks triggers one refetch (a provider's key
 * rotation). Every fetch counts in a rolling minute; once {@code fetchesPerMinute} fall in it no
 * fetch is made and the kept set answers, so a flood of random kids cannot hammer the provider.
 * Thread-safe (one fetch at a time).
 */
final class OidcKeys {
    private static final Duration KEEP = Duration.ofMinutes(5);

    private final JwksSource source;
    private final RollingWindow fetches;
    private final Clock clock;
    private URI keptFrom;
    private JWKSet kept;
    private Instant keptUntil = Instant.MIN;

    OidcKeys(JwksSource source, int fetchesPerMinute, Clock clock) {
        this.source = source;
        this.fetches = new RollingWindow(fetchesPerMinute, Duration.ofMinutes(1), clock);
        this.clock = clock;
    }

    /** The keys at {@code jwksUri} that {@code matcher} selects, refetching once for an unknown kid when the limit allows. */
    synchronized List<JWK> select(URI jwksUri, JWKMatcher matcher) {
        boolean current = jwksUri.equals(keptFrom) && kept != null;
        if (!current || !clock.instant().isBefore(keptUntil)) {
            if (!fetch(jwksUri) && !current) {
                throw new CotalException(ErrorCode.UNAVAILABLE, "the identity provider's keys were fetched "
                        + "too often - retry in a minute");
            }
        }
        List<JWK> found = new JWKSelector(matcher).select(kept);
        Set<String> kids = matcher.getKeyIDs();
        if (found.isEmpty() && kids != null && !kids.isEmpty() && kids.stream().allMatch(k -> kept.getKeyByKeyId(k) == null)
                && fetch(jwksUri)) {
            found = new JWKSelector(matcher).select(kept);
        }
        return found;
    }

    private boolean fetch(URI jwksUri) {
        if (fetches.full()) {
            return false;
        }
        fetches.record();
        JWKSet keys = source.fresh(jwksUri); // unavailable when the provider cannot be reached
        kept = keys;
        keptFrom = jwksUri;
        keptUntil = clock.instant().plus(KEEP);
        return true;
    }
}
