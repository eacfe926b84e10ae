package ai.cotal.core.trust;

import ai.cotal.core.id.SpaceName;
import ai.cotal.core.CotalException;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.jwt.AccountClaim;
import ai.cotal.core.jwt.AccountLimits;
import ai.cotal.core.jwt.CalloutSettings;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.jwt.Permission;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.internal.keys.NKeyCodec;
import ai.cotal.core.keys.NKeyPair;
import ai.cotal.core.keys.XKeyPair;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The auth-callout account of a space, {@code AUTH_<token>}: its key, a signing key, the account
 * JWT with {@code authorization{auth_users: [callout user], allowed_accounts: [data account],
 * xkey}}, the callout user's credential (subscribes {@code $SYS.REQ.USER.AUTH}; publishes
 * anything but that subject, to answer), the powerless sentinel credential (denies everything:
 * clients present it with their bearer, so every sentinel connect goes to the callout), and the
 * curve key requests are sealed to. No JetStream. Preloaded as an extra account.
 *
 * <p>Immutable; {@code toString()} shows public keys only.
 */
public record CalloutAuth(String space, NKeyPair account, NKeyPair signing, String jwt, Creds calloutCreds,
        Creds sentinelCreds, XKeyPair xkey) {
    /** The subject nats-server sends authorization requests on. */
    public static final String REQUEST_SUBJECT = "$SYS.REQ.USER.AUTH";

    public CalloutAuth {
        SpaceName.of(space, "space");
        Objects.requireNonNull(account, "account");
        Objects.requireNonNull(signing, "signing");
        Objects.requireNonNull(jwt, "jwt");
        Objects.requireNonNull(calloutCreds, "calloutCreds");
        Objects.requireNonNull(sentinelCreds, "sentinelCreds");
        Objects.requireNonNull(xkey, "xkey");
    }

    /** A new callout account for {@code space}, signed by {@code broker}'s operator, placing users in {@code dataAccount}. */
    public static CalloutAuth create(String space, BrokerAuth broker, String dataAccount, Clock clock) {
        SpaceName.of(space, "space");
        if (!NKeyCodec.isPublic(dataAccount, KeyType.ACCOUNT)) {
            throw CotalException.badRequest("dataAccount", "must be an account public key");
        }
        Instant now = clock.instant();
        NKeyPair account = NKeyPair.create(KeyType.ACCOUNT);
        NKeyPair signing = NKeyPair.create(KeyType.ACCOUNT);
        XKeyPair xkey = XKeyPair.create();
        Identity callout = Identity.create();
        Identity sentinel = Identity.create();
        AccountClaim body = new AccountClaim(AccountLimits.unlimited(false), List.of(signing.publicKey()), null, null,
                new CalloutSettings(List.of(callout.id()), List.of(dataAccount), xkey.publicKey()), null, null);
        String jwt = NatsJwt.encode(ClaimSet.of(account.publicKey(), "AUTH_" + SpaceName.token(space), body, now),
                broker.operator());
        Creds calloutCreds = user(callout, "callout", Permission.allowDeny(List.of(">"), List.of(REQUEST_SUBJECT)),
                Permission.allow(List.of(REQUEST_SUBJECT)), account, signing, now);
        Creds sentinelCreds = user(sentinel, "sentinel", Permission.none(), Permission.none(), account, signing, now);
        return new CalloutAuth(space, account, signing, jwt, calloutCreds, sentinelCreds, xkey);
    }

    private static Creds user(Identity identity, String name, Permission pub, Permission sub, NKeyPair account,
            NKeyPair signing, Instant now) {
        UserClaim body = UserClaim.of(pub, sub, account.publicKey(), null);
        return new Creds(NatsJwt.encode(ClaimSet.of(identity.id(), name, body, now), signing), identity);
    }

    /** The callout account's public key ({@code A...}). */
    public String accountPublicKey() {
        return account.publicKey();
    }
}
