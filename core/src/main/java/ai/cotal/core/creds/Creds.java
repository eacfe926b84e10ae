package ai.cotal.core.creds;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.creds.CredentialProfile.Grants;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.keys.AccountSigner;
import ai.cotal.core.keys.InMemoryAccountSigner;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.keys.NKeyPair;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.core.trust.SpaceSigner;
import io.nats.client.AuthHandler;
import io.nats.client.Nats;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A user credential: the user JWT and the identity's seed, in the standard {@code .creds} text
 * that jnats reads ({@link #authHandler()} or {@code Nats.staticCredentials}). {@link #toString()}
 * shows the user key and fingerprint only. Immutable and thread-safe.
 */
public record Creds(String jwt, Identity identity) {
    private static final String FORMAT = "-----BEGIN NATS USER JWT-----\n%s\n------END NATS USER JWT------\n\n"
            + "************************* IMPORTANT *************************\n"
            + "NKEY Seed printed below can be used to sign and prove identity.\n"
            + "NKEYs are sensitive and should be treated as secrets.\n\n"
            + "-----BEGIN USER NKEY SEED-----\n%s\n------END USER NKEY SEED------\n\n"
            + "*************************************************************\n";
    private static final Pattern BLOCK = Pattern.compile("-{3,}BEGIN ([A-Z ]+)-{3,}\\s*\\n\\s*([^\\s-][^\\n]*?)\\s*\\n\\s*-{3,}END \\1-{3,}");

    public Creds {
        Objects.requireNonNull(jwt, "jwt");
        Objects.requireNonNull(identity, "identity");
    }

    /** Mints a data-account credential of {@code profile} for {@code identity} in {@code auth}'s space. */
    public static Creds mint(SpaceAuth auth, Identity identity, CredentialProfile profile, MintOptions options) {
        return mint(auth.strip(), identity, profile, options);
    }

    /**
     * Mints a data-account credential with a stripped signer: the user JWT is signed by the space's
     * signing key with {@code issuer_account} set to the data account.
     */
    public static Creds mint(SpaceSigner signer, Identity identity, CredentialProfile profile, MintOptions options) {
        requireGeneralMint(profile);
        Objects.requireNonNull(identity, "identity");
        return new Creds(sign(signer, identity.id(), profile, options, null), identity);
    }

    /**
     * Signs a user JWT for a public key someone else holds (a remote manager's {@code U...} key:
     * its seed never leaves it). Only {@link #PUBLIC_KEY_PROFILES}; the options must bound the
     * lifetime ({@code expiresAt} or {@code expiresInSeconds}).
     */
    public static String mintPublicUserJwt(SpaceSigner signer, String userPublicKey, CredentialProfile profile,
            MintOptions options) {
        Objects.requireNonNull(profile, "profile");
        Objects.requireNonNull(options, "options");
        if (userPublicKey == null || !ai.cotal.core.internal.keys.NKeyCodec.isPublic(userPublicKey, KeyType.USER)) {
            throw CotalException.badRequest("userPublicKey", "must be a user public key (U...)");
        }
        if (!PUBLIC_KEY_PROFILES.contains(profile)) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, "profile: " + profile.label()
                    + " is not minted for a public key (allowed: remote-manager, goal-writer, session-ledger,"
                    + " session-serving, retirement-requester)");
        }
        if (options.expiresAt().isEmpty() && options.expiresInSeconds().isEmpty()) {
            throw CotalException.badRequest("expiresAt", "a credential for a public key needs a bounded exp: give expiresAt"
                    + " or expiresInSeconds");
        }
        return sign(signer, userPublicKey, profile, options, null);
    }

    /** The profiles {@link #mintPublicUserJwt} signs. */
    public static final java.util.Set<CredentialProfile> PUBLIC_KEY_PROFILES = java.util.Set.copyOf(java.util.EnumSet.of(
            CredentialProfile.REMOTE_MANAGER, CredentialProfile.GOAL_WRITER, CredentialProfile.SESSION_LEDGER,
            CredentialProfile.SESSION_SERVING, CredentialProfile.RETIREMENT_REQUESTER));

    private static void requireGeneralMint(CredentialProfile profile) {
        Objects.requireNonNull(profile, "profile");
        if (profile.systemAccount()) {
            throw CotalException.badRequest("profile", profile.label() + " is a system-account profile: use mintSystem");
        }
        if (profile == CredentialProfile.ENDPOINT_SERVE) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, "profile: endpoint-serve is minted only by the plane,"
                    + " behind its gate compare-and-set (SPEC §3.5)");
        }
    }

    /** A data-account user JWT for {@code userKey}; {@code endpoint} only for the gated endpoint-serve entry. */
    static String sign(SpaceSigner signer, String userKey, CredentialProfile profile, MintOptions options, String endpoint) {
        return sign(signer.space(), signer.accountPublicKey(), signer.signing(), userKey, profile, options, null, endpoint);
    }

    /**
     * Mints a system-account credential ({@code membership-observer} or {@code connection-evictor})
     * with the system account's key, which only a freshly created or rotated {@link BrokerAuth}
     * holds. {@code dataAccount} is the account the observer watches (ignored by the evictor).
     */
    public static Creds mintSystem(BrokerAuth broker, Identity identity, CredentialProfile profile, String dataAccount,
            MintOptions options) {
        if (!profile.systemAccount()) {
            throw CotalException.badRequest("profile", profile.label() + " is a data-account profile: use mint");
        }
        if (profile == CredentialProfile.MEMBERSHIP_OBSERVER
                && (dataAccount == null || !ai.cotal.core.internal.keys.NKeyCodec.isPublic(dataAccount, KeyType.ACCOUNT))) {
            throw CotalException.badRequest("dataAccount", "must be the observed data account's public key");
        }
        Objects.requireNonNull(identity, "identity");
        NKeyPair system = broker.requireSystemSigner();
        return new Creds(sign("$SYS", system.publicKey(), new InMemoryAccountSigner(system), identity.id(), profile, options,
                dataAccount, null), identity);
    }

    private static String sign(String space, String account, AccountSigner signer, String userKey,
            CredentialProfile profile, MintOptions options, String observedAccount, String endpoint) {
        Objects.requireNonNull(options, "options");
        Instant now = options.clock().instant();
        String actor = options.actor().orElse(userKey);
        String connId = options.connId().orElse(userKey);
        Grants grants = ProfilePermissions.grants(profile, new ProfilePermissions.Scope(space, connId, options.owner(),
                actor, options.lifecycleUid().orElse(null), options.allowPublish(), options.allowSubscribe(),
                observedAccount, options.pin().orElse(null), endpoint));
        List<String> tags = List.of("owner:" + options.owner(), "actor:" + actor, "principal:" + options.owner() + "." + actor);
        String issuerAccount = signer.publicKey().equals(account) ? null : account;
        UserClaim body = new UserClaim(grants.pub(), grants.sub(), grants.resp(), null, null, null, -1L, -1L, -1L, null, null,
                null, issuerAccount, tags);
        ClaimSet<UserClaim> claims = ClaimSet.of(userKey, profile.label(), body, now)
                .withExp(expiry(profile, options, now));
        return NatsJwt.encode(claims, signer);
    }

    /** The effective {@code exp}: the override, else the profile default; bounded by the host's cap. */
    static Long expiry(CredentialProfile profile, MintOptions options, Instant now) {
        long nowSeconds = now.getEpochSecond();
        Long requested = options.expiresAt().map(Instant::getEpochSecond)
                .or(() -> options.expiresInSeconds().map(s -> Math.addExact(nowSeconds, s))).orElse(null);
        if (requested != null && requested <= nowSeconds) {
            throw CotalException.badRequest("expiresAt", "has already passed");
        }
        Long cap = options.maxTtl().map(d -> nowSeconds + d.toSeconds()).orElse(null);
        if (requested != null) {
            if (cap != null && requested > cap) {
                throw new CotalException(ErrorCode.PERMISSION_DENIED, (options.expiresAt().isPresent() ? "expiresAt"
                        : "expiresInSeconds") + ": exceeds the host's cap of " + options.maxTtl().get().toSeconds() + " s");
            }
            return requested;
        }
        Long byDefault = profile.lifetime().ttl().map(d -> nowSeconds + d.toSeconds()).orElse(null);
        if (cap != null && (byDefault == null || byDefault > cap)) {
            return cap;
        }
        return byDefault;
    }

    /** Reads {@code .creds} text; refused unless the seed's public key is the JWT's subject. */
    public static Creds parse(String text) {
        String jwt = null;
        String seed = null;
        Matcher m = BLOCK.matcher(text == null ? "" : text);
        while (m.find()) {
            if (m.group(1).equals("NATS USER JWT") && jwt == null) {
                jwt = m.group(2);
            } else if (m.group(1).equals("USER NKEY SEED") && seed == null) {
                seed = m.group(2);
            }
        }
        if (jwt == null || seed == null) {
            throw CotalException.badRequest("creds", "needs a NATS USER JWT block and a USER NKEY SEED block");
        }
        Identity identity = Identity.fromSeed(seed);
        String subject = NatsJwt.decode(jwt).sub();
        if (!identity.id().equals(subject)) {
            throw CotalException.badRequest("creds", "the seed's public key is not the JWT's subject");
        }
        return new Creds(jwt, identity);
    }

    /** The standard {@code .creds} text. A secret: it holds the seed. */
    public String text() {
        return String.format(FORMAT, jwt, identity.key().seed());
    }

    /** The user's public key ({@code U...}). */
    public String userPublicKey() {
        return identity.id();
    }

    /** Lowercase hex SHA-256 of the JWT: names a credential without revealing anything. */
    public String fingerprint() {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(jwt.getBytes(StandardCharsets.US_ASCII)));
        } catch (NoSuchAlgorithmException e) {
            throw CotalException.internal("SHA-256 unavailable", e);
        }
    }

    /** The jnats auth handler for this credential (in memory, no file). */
    public AuthHandler authHandler() {
        return Nats.staticCredentials(jwt.toCharArray(), identity.key().seed().toCharArray());
    }

    /** The inbox prefix a client of this credential must use when {@code connId} was not overridden. */
    public String inboxPrefix() {
        return "_INBOX_" + identity.id();
    }

    @Override
    public String toString() {
        return "Creds[" + identity.id() + " sha256:" + fingerprint().substring(0, 16) + "]";
    }
}
