package ai.cotal.auth.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.TestClock;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKMatcher;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The fetch rules of an oidc pin's keys (SPEC §13.17), against a counting key source and a test
 * clock: one fetch per unknown kid (a fresh start, concurrent tokens), and a spent budget that
 * answers {@code unavailable} with the seconds until it refills instead of refusing the kid.
 */
class OidcKeysTest {
    private static final URI JWKS = URI.create("https://idp.example/certs");
    private final AtomicLong millis = new AtomicLong(1_000_000);
    private final AtomicInteger fetches = new AtomicInteger();
    private final AtomicReference<JWKSet> served = new AtomicReference<>();

    private static JWK key(String kid) throws Exception {
        return new RSAKeyGenerator(2048).keyID(kid).generate().toPublicJWK();
    }

    private static JWKMatcher kid(String kid) {
        return JWKMatcher.forJWSHeader(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(kid).build());
    }

    private OidcKeys keys(int perMinute, JwksSource source) {
        return new OidcKeys(source, perMinute, new TestClock(millis::get));
    }

    private JwksSource counting() {
        return uri -> {
            fetches.incrementAndGet();
            return served.get();
        };
    }

    @Test
    void anUnknownKidOnAFreshStartCostsOneFetch() throws Exception {
        served.set(new JWKSet(key("k1")));
        OidcKeys keys = keys(6, counting());
        assertEquals(List.of(), keys.select(JWKS, kid("unknown")), "the provider does not hold it");
        assertEquals(1, fetches.get(), "the first fetch already answered the kid: no second one");
        assertEquals(List.of(), keys.select(JWKS, kid("unknown")));
        assertEquals(2, fetches.get(), "a later token with an unknown kid refetches once");
    }

    @Test
    void concurrentTokensNamingTheSameNewKidShareOneRefetch() throws Exception {
        JWK k1 = key("k1");
        JWK k2 = key("k2");
        served.set(new JWKSet(k1));
        CountDownLatch release = new CountDownLatch(1);
        OidcKeys keys = keys(6, uri -> {
            if (fetches.incrementAndGet() == 2) { // the refetch waits until the second token is at the lock
                try {
                    assertTrue(release.await(10, TimeUnit.SECONDS));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
            return served.get();
        });
        assertEquals(1, keys.select(JWKS, kid("k1")).size());
        served.set(new JWKSet(List.of(k1, k2))); // the provider rotates k2 in
        List<List<JWK>> found = new ArrayList<>();
        Thread first = new Thread(() -> found.add(keys.select(JWKS, kid("k2"))));
        first.start();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (fetches.get() < 2 && System.nanoTime() < deadline) { // the refetch started: the first token holds the lock
            Thread.onSpinWait();
        }
        assertEquals(2, fetches.get());
        List<List<JWK>> second = new ArrayList<>();
        Thread waiting = new Thread(() -> second.add(keys.select(JWKS, kid("k2"))));
        waiting.start();
        while (waiting.getState() != Thread.State.BLOCKED && System.nanoTime() < deadline) {
            Thread.onSpinWait(); // the second token arrived (read the fetch count) and waits at the lock
        }
        assertEquals(Thread.State.BLOCKED, waiting.getState());
        release.countDown();
        first.join(10_000);
        waiting.join(10_000);
        assertEquals("k2", found.get(0).get(0).getKeyID());
        assertEquals("k2", second.get(0).get(0).getKeyID());
        assertEquals(2, fetches.get(), "one first fetch and one refetch for both tokens");
    }

    @Test
    void aSpentBudgetAnswersUnavailableWithTheSecondsUntilItRefillsNeverAnUnknownKid() throws Exception {
        served.set(new JWKSet(key("k1")));
        OidcKeys keys = keys(2, counting());
        assertEquals(1, keys.select(JWKS, kid("k1")).size());
        millis.addAndGet(10_000);
        assertEquals(List.of(), keys.select(JWKS, kid("random")), "the second fetch: the provider lacks it");
        served.set(new JWKSet(List.of(key("k1"), key("k2"))));
        millis.addAndGet(5_000);
        IdpKeysUnavailable spent = assertThrows(IdpKeysUnavailable.class, () -> keys.select(JWKS, kid("k2")));
        assertEquals(ErrorCode.UNAVAILABLE, spent.code());
        assertEquals(45, spent.retryAfterSeconds(), "the first fetch leaves the minute 45 s from now");
        assertEquals("the identity provider's keys were fetched too often; retry in 45 s", spent.getMessage());
        assertEquals(1, keys.select(JWKS, kid("k1")).size(), "a kid the kept set holds still answers");
        assertEquals(2, fetches.get());
        millis.addAndGet(45_000);
        assertEquals("k2", keys.select(JWKS, kid("k2")).get(0).getKeyID(), "the budget refilled: the new key is fetched");
        assertEquals(3, fetches.get());
    }

    @Test
    void aFailedFetchNamesTheIdentityProvider() {
        OidcKeys keys = keys(6, uri -> {
            fetches.incrementAndGet();
            throw new CotalException(ErrorCode.UNAVAILABLE, "cannot fetch the identity provider's JWKS (ConnectException)");
        });
        IdpKeysUnavailable down = assertThrows(IdpKeysUnavailable.class, () -> keys.select(JWKS, kid("k1")));
        assertEquals("the identity provider's keys cannot be fetched now; retry shortly", down.getMessage());
        assertEquals(0, down.retryAfterSeconds());
        assertEquals(1, fetches.get());
    }
}
