package ai.cotal.core.claims;

import ai.cotal.core.CotalException;
import ai.cotal.core.jwt.AccountClaim;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.ClaimVerifier;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.trust.BrokerAuth;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;

/**
 * The retire and reinstate claims of a space (SPEC §5.2). Retiring re-signs the account with
 * {@code limits.conn = 0} (no connection is admitted) and {@code revocations["*"] = now} (every
 * user issued up to now is refused and its live connections closed); JetStream limits stay, so
 * the space's streams and their messages stay in place. Reinstating re-signs it with
 * {@code conn = -1} and keeps the revocations: users issued before the retirement stay dead.
 */
final class AccountRetirement {
    private AccountRetirement() {
    }

    static String retire(BrokerAuth broker, String accountJwt, long nowSeconds) {
        ClaimSet<AccountClaim> current = verified(broker, accountJwt, nowSeconds);
        Map<String, Long> revocations = new HashMap<>();
        if (current.nats().revocations() != null) {
            revocations.putAll(current.nats().revocations());
        }
        revocations.merge("*", nowSeconds, Math::max);
        AccountClaim body = current.nats();
        AccountClaim retired = new AccountClaim(body.limits().withConn(0), body.signingKeys(), revocations,
                body.defaultPermissions(), body.authorization(), body.description(), body.tags());
        return reissue(broker, current, retired, nowSeconds);
    }

    static String reinstate(BrokerAuth broker, String retiredJwt, long nowSeconds) {
        ClaimSet<AccountClaim> current = verified(broker, retiredJwt, nowSeconds);
        AccountClaim body = current.nats();
        if (body.limits() == null || !body.limits().admitsNoConnection()) {
            throw CotalException.badRequest("retiredJwt", "is not a retired claim (conn is not 0)");
        }
        AccountClaim reinstated = new AccountClaim(body.limits().withConn(-1), body.signingKeys(), body.revocations(),
                body.defaultPermissions(), body.authorization(), body.description(), body.tags());
        return reissue(broker, current, reinstated, nowSeconds);
    }

    static String teardownWindow(BrokerAuth broker, String retiredJwt, long nowSeconds) {
        ClaimSet<AccountClaim> current = verified(broker, retiredJwt, nowSeconds);
        AccountClaim body = current.nats();
        if (body.limits() == null || !body.limits().admitsNoConnection()) {
            throw CotalException.failedPrecondition("only a retired space is torn down: the claim admits connections"
                    + " (retire it first, after a backup)");
        }
        AccountClaim window = new AccountClaim(body.limits().withConn(1), body.signingKeys(), body.revocations(),
                body.defaultPermissions(), body.authorization(), body.description(), body.tags());
        return reissue(broker, current, window, nowSeconds);
    }

    private static ClaimSet<AccountClaim> verified(BrokerAuth broker, String jwt, long nowSeconds) {
        if (nowSeconds < 0) {
            throw CotalException.badRequest("nowSeconds", "must not be negative");
        }
        Clock at = Clock.fixed(Instant.ofEpochSecond(nowSeconds), ZoneOffset.UTC);
        try {
            return new ClaimVerifier(at).verifyAccount(jwt, broker.operatorClaims(at));
        } catch (CotalException e) {
            throw CotalException.badRequest("accountJwt", "not an account of this broker's operator (" + e.getMessage() + ")");
        }
    }

    /** Issued no earlier than the claim it replaces, so a resolver never keeps the old one. */
    private static String reissue(BrokerAuth broker, ClaimSet<AccountClaim> current, AccountClaim body, long nowSeconds) {
        long iat = Math.max(nowSeconds, current.iat() + 1);
        return NatsJwt.encode(new ClaimSet<>(null, iat, null, current.name(), current.sub(), current.aud(), current.exp(),
                null, body), broker.operator());
    }
}
