package ai.cotal.core.trust;

import ai.cotal.core.id.SpaceName;
import ai.cotal.core.CotalException;
import ai.cotal.core.jwt.AccountClaim;
import ai.cotal.core.jwt.AccountLimits;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.ClaimVerifier;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.keys.NKeyPair;
import java.time.Clock;
import java.util.List;
import java.util.Objects;

/**
 * A space's data account: its key, a separate signing key that signs every user of the space,
 * and the account JWT (named {@code token(space)}, JetStream unlimited, signed by the broker's
 * operator). Persisted on its own, apart from the broker's trust.
 *
 * <p>Immutable and thread-safe; {@code toString()} shows public keys only.
 */
public record SpaceAccountAuth(String space, NKeyPair account, NKeyPair signing, String jwt) {
    public SpaceAccountAuth {
        SpaceName.of(space, "space");
        Objects.requireNonNull(account, "account");
        Objects.requireNonNull(signing, "signing");
        Objects.requireNonNull(jwt, "jwt");
        if (account.type() != KeyType.ACCOUNT || signing.type() != KeyType.ACCOUNT) {
            throw CotalException.badRequest("account", "account and signing keys must be account keys");
        }
        if (account.publicKey().equals(signing.publicKey())) {
            throw CotalException.badRequest("signing", "the signing key must differ from the account key");
        }
    }

    /** A new data account for {@code space}, signed by {@code broker}'s operator. */
    public static SpaceAccountAuth create(BrokerAuth broker, String space, Clock clock) {
        SpaceName.of(space, "space");
        NKeyPair account = NKeyPair.create(KeyType.ACCOUNT);
        NKeyPair signing = NKeyPair.create(KeyType.ACCOUNT);
        return new SpaceAccountAuth(space, account, signing, issue(broker, space, account, signing,
                clock.instant().getEpochSecond()));
    }

    private static String issue(BrokerAuth broker, String space, NKeyPair account, NKeyPair signing, long iat) {
        AccountClaim body = new AccountClaim(AccountLimits.unlimited(true), List.of(signing.publicKey()), null, null,
                null, null, null);
        return NatsJwt.encode(new ClaimSet<>(null, iat, null, SpaceName.token(space), account.publicKey(), null, null,
                null, body), broker.operator());
    }

    /** The account's public key ({@code A...}). */
    public String accountPublicKey() {
        return account.publicKey();
    }

    /**
     * A new signing key and a re-issued account JWT that lists only it: once the broker holds the
     * new claim, every user signed by the old key is refused. The claim is issued later than the
     * current one.
     */
    public SpaceAccountAuth rotateDataAccountSigningKey(BrokerAuth broker, Clock clock) {
        requireSignedBy(broker, clock);
        NKeyPair next = NKeyPair.create(KeyType.ACCOUNT);
        long iat = Math.max(clock.instant().getEpochSecond(), NatsJwt.decode(jwt).iat() + 1);
        return new SpaceAccountAuth(space, account, next, issue(broker, space, account, next, iat));
    }

    /** The verified account claims; refused unless {@code broker}'s operator signed them. */
    public ClaimSet<AccountClaim> requireSignedBy(BrokerAuth broker, Clock clock) {
        ClaimSet<AccountClaim> claims = new ClaimVerifier(clock).verifyAccount(jwt, broker.operatorClaims(clock));
        if (!claims.sub().equals(account.publicKey())) {
            throw CotalException.badRequest("jwt", "the account JWT is not for this account key");
        }
        if (!claims.nats().hasSigningKey(signing.publicKey())) {
            throw CotalException.badRequest("signing", "the account JWT does not list this signing key");
        }
        return claims;
    }
}
