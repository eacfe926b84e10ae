package ai.cotal.core.jwt;

import ai.cotal.core.CotalException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Verifies decoded NATS JWTs against a clock and an issuer chain: {@code iat}, {@code exp} and
 * {@code nbf} with a stated tolerance ({@link #DEFAULT_SKEW} unless given), operators self-signed,
 * accounts signed by the trusted operator or one of its signing keys, users signed by their
 * account or one of its signing keys (then with {@code issuer_account} set), and account
 * revocations. Every refusal is {@code unauthenticated} and names the claim it checked.
 *
 * <p>Immutable and thread-safe.
 */
public final class ClaimVerifier {
    /** The tolerance for clock differences between this host and the issuer or broker. */
    public static final Duration DEFAULT_SKEW = Duration.ofSeconds(5);

    private final Clock clock;
    private final long skew;

    public ClaimVerifier(Clock clock) {
        this(clock, DEFAULT_SKEW);
    }

    public ClaimVerifier(Clock clock, Duration skew) {
        this.clock = Objects.requireNonNull(clock, "clock");
        if (skew.isNegative()) {
            throw CotalException.badRequest("skew", "must not be negative");
        }
        this.skew = skew.toSeconds();
    }

    /** Checks {@code iat} (not in the future), {@code exp} (not passed) and {@code nbf} (reached). */
    public void checkTimes(ClaimSet<?> claims) {
        long now = clock.instant().getEpochSecond();
        if (claims.iat() > now + skew) {
            throw CotalException.unauthenticated("iat: issued in the future");
        }
        if (claims.exp() != null && claims.exp() + skew <= now) {
            throw CotalException.unauthenticated("exp: expired");
        }
        if (claims.nbf() != null && claims.nbf() > now + skew) {
            throw CotalException.unauthenticated("nbf: not valid yet");
        }
    }

    /** A self-signed operator JWT. */
    public ClaimSet<OperatorClaim> verifyOperator(String token) {
        ClaimSet<OperatorClaim> operator = NatsJwt.decode(token, OperatorClaim.class);
        if (!operator.iss().equals(operator.sub())) {
            throw CotalException.unauthenticated("iss: an operator JWT must be self-signed");
        }
        checkTimes(operator);
        return operator;
    }

    /** An account JWT issued by {@code operator} or one of its signing keys. */
    public ClaimSet<AccountClaim> verifyAccount(String token, ClaimSet<OperatorClaim> operator) {
        ClaimSet<AccountClaim> account = NatsJwt.decode(token, AccountClaim.class);
        boolean signingKey = operator.nats().signingKeys() != null && operator.nats().signingKeys().contains(account.iss());
        if (!account.iss().equals(operator.sub()) && !signingKey) {
            throw CotalException.unauthenticated("iss: account " + account.sub() + " is not signed by operator "
                    + operator.sub());
        }
        checkTimes(account);
        return account;
    }

    /**
     * A user JWT issued by {@code account} or one of its signing keys, and not revoked by it.
     */
    public ClaimSet<UserClaim> verifyUser(String token, ClaimSet<AccountClaim> account) {
        ClaimSet<UserClaim> user = NatsJwt.decode(token, UserClaim.class);
        String accountKey = account.sub();
        String issuerAccount = user.nats().issuerAccount();
        if (user.iss().equals(accountKey)) {
            if (issuerAccount != null && !issuerAccount.equals(accountKey)) {
                throw CotalException.unauthenticated("issuer_account: names another account than the issuer");
            }
        } else if (account.nats().hasSigningKey(user.iss())) {
            if (!accountKey.equals(issuerAccount)) {
                throw CotalException.unauthenticated("issuer_account: a user signed by a signing key must name "
                        + accountKey);
            }
        } else {
            throw CotalException.unauthenticated("iss: user " + user.sub() + " is not signed by account "
                    + accountKey + " or one of its signing keys");
        }
        Map<String, Long> revocations = account.nats().revocations();
        if (revocations != null) {
            long revokedUntil = Math.max(revocations.getOrDefault(user.sub(), -1L), revocations.getOrDefault("*", -1L));
            if (user.iat() <= revokedUntil) {
                throw CotalException.unauthenticated("iat: user " + user.sub() + " is revoked by its account");
            }
        }
        checkTimes(user);
        return user;
    }
}
