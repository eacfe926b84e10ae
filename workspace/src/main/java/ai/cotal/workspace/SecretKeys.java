package ai.cotal.workspace;

import ai.cotal.core.CotalException;
import ai.cotal.core.secrets.SecretKey;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * The secret-store keys of the SDK. Space-scoped keys live under {@code space.<hex>/}, where
 * {@code hex} is the lowercase hex of the space name's UTF-8 bytes: {@code alpha} and
 * {@code Alpha} never share a key, and no name can form a path. Broker trust lives under
 * {@code auth/}.
 */
public final class SecretKeys {
    private SecretKeys() {
    }

    /** Lowercase hex of the UTF-8 bytes of {@code space}; refuses empty, {@code .}, {@code ..} and lone surrogates. */
    public static String spaceKey(String space) {
        if (space == null || space.isEmpty()) {
            throw CotalException.badRequest("space", "must not be empty");
        }
        if (space.equals(".") || space.equals("..")) {
            throw CotalException.badRequest("space", "'.' and '..' are not space names");
        }
        for (int i = 0; i < space.length(); i++) {
            char c = space.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= space.length() || !Character.isLowSurrogate(space.charAt(i + 1))) {
                    throw CotalException.badRequest("space", "contains a lone surrogate");
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                throw CotalException.badRequest("space", "contains a lone surrogate");
            }
        }
        return HexFormat.of().formatHex(space.getBytes(StandardCharsets.UTF_8));
    }

    /** {@code space.<hex>}: the folder of every per-space key. */
    public static String spaceSegment(String space) {
        return "space." + spaceKey(space);
    }

    private static String perSpace(String space, String kind) {
        return SecretKey.check(spaceSegment(space) + "/" + kind);
    }

    /** The delivery daemon's standing credential. The bare {@code delivery.creds} is never a store key. */
    public static String deliveryCredsKey(String space) {
        return perSpace(space, "delivery.creds");
    }

    /**
     * The membership observer's system-account credential ({@code membership-observer.creds}):
     * reads the data account's {@code CONNZ} and connect events (SPEC §3.5).
     */
    public static String membershipObserverCredsKey(String space) {
        return perSpace(space, "membership-observer.creds");
    }

    /** The membership writer's data-account credential ({@code membership-rw.creds}, SPEC §3.5). */
    public static String membershipWriterCredsKey(String space) {
        return perSpace(space, "membership-rw.creds");
    }

    /**
     * The connection evictor's system-account credential ({@code connection-evictor.creds}): kicks
     * a connection on its server (SPEC §3.5).
     */
    public static String connectionEvictorCredsKey(String space) {
        return perSpace(space, "connection-evictor.creds");
    }

    /** The callout account, its credentials and xkey. */
    public static String calloutKey(String space) {
        return perSpace(space, "callout.json");
    }

    /** The bearer issuer's keys. */
    public static String issuerKeysKey(String space) {
        return perSpace(space, "issuer.json");
    }

    /** The owner-derivation secret (at least 32 bytes). */
    public static String ownerSecretKey(String space) {
        return perSpace(space, "owner-secret.json");
    }

    /** The data signer projection the service keys need ({@code {pub, signingSeed}}). */
    public static String serviceKeysKey(String space) {
        return perSpace(space, "service-keys.json");
    }

    /** The auth instance identity (the plane's restart identity: instance id and serve identity, no secret). */
    public static String authInstanceKey(String space) {
        return perSpace(space, "auth-instance.json");
    }

    /** The broker trust record. */
    public static String brokerKey() {
        return "auth/broker.json";
    }

    /** A space's data-account record. */
    public static String accountKey(String space) {
        return SecretKey.check("auth/account." + spaceKey(space) + ".json");
    }

    /**
     * The root's {@code account-claims} system credential (SPEC §7.5): minted once, when the broker
     * record is created, for pushing its tenants' claims to a running broker.
     */
    public static String accountClaimsCredsKey() {
        return "auth/account-claims.creds";
    }

    /**
     * The system account's seed of a root that provisions spaces ({@code cotal-auth}): the
     * membership observer and the connection evictor of each space added are minted with it.
     */
    public static String systemAccountSeedKey() {
        return "auth/system-account.seed";
    }

    /** The list of spaces whose account records exist. */
    public static String accountIndexKey() {
        return "auth/accounts.json";
    }
}
