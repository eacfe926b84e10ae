package ai.cotal.auth.exchange;

import ai.cotal.core.CotalException;
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
 * rotation), unless a set fetched after the token arrived already answered it (a fresh start's
 * first fetch, or a concurrent token's refetch), so one unknown kid costs one fetch. Every fetch
 * counts in a rolling minute, the fetch budget; while it is spent no fetch is made: the kept set
 * answers the kids it holds, and a token it cannot answer is {@link IdpKeysUnavailable} with the
 * time until the budget refills, never a refusal of a key the provider may have just published.
 * A failed fetch is {@link IdpKeysUnavailable} too. Thread-safe (one fetch at a time).
 */
final class OidcKeys {
    private static final Duration KEEP = Duration.ofMinutes(5);

    private final JwksSource source;
    private final RollingWindow fetches;
    private final Clock clock;
    /** Successful fetches so far: a token that sees it move while it waits got a set newer than itself. */
    private volatile long fetched;
    private URI keptFrom;
    private JWKSet kept;
    private Instant keptUntil = Instant.MIN;

    OidcKeys(JwksSource source, int fetchesPerMinute, Clock clock) {
        this.source = source;
        this.fetches = new RollingWindow(fetchesPerMinute, Duration.ofMinutes(1), clock);
        this.clock = clock;
    }

    /**
     * The keys at {@code jwksUri} that {@code matcher} selects, refetching once for an unknown kid
     * no set newer than the token has answered; empty when the provider's current set has none.
     *
     * @throws IdpKeysUnavailable when the set cannot be fetched, or a fetch is needed and the budget is spent
     */
    List<JWK> select(URI jwksUri, JWKMatcher matcher) {
        long arrived = fetched; // read before waiting for the lock: a fetch made meanwhile is newer than the token
        synchronized (this) {
            boolean current = jwksUri.equals(keptFrom) && kept != null;
            if (!current) {
                fetch(jwksUri);
            } else if (!clock.instant().isBefore(keptUntil) && !fetches.full()) {
                fetch(jwksUri); // expired: refreshed while the budget allows, else the kept set answers
            }
            List<JWK> found = new JWKSelector(matcher).select(kept);
            Set<String> kids = matcher.getKeyIDs();
            boolean unknownKid = found.isEmpty() && kids != null && !kids.isEmpty()
                    && kids.stream().allMatch(k -> kept.getKeyByKeyId(k) == null);
            if (unknownKid && fetched == arrived) { // no set newer than the token has answered it
                fetch(jwksUri);
                found = new JWKSelector(matcher).select(kept);
            }
            return found;
        }
    }

    private void fetch(URI jwksUri) {
        if (fetches.full()) {
            throw IdpKeysUnavailable.budgetSpent(fetches.refillIn());
        }
        fetches.record();
        JWKSet keys;
        try {
            keys = source.fresh(jwksUri);
        } catch (CotalException e) {
            throw IdpKeysUnavailable.cannotFetch(e);
        }
        kept = keys;
        keptFrom = jwksUri;
        keptUntil = clock.instant().plus(KEEP);
        fetched++; // under the lock: one writer
    }
}
