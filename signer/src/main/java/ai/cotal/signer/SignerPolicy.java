package ai.cotal.signer;

import ai.cotal.core.CotalException;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.core.internal.keys.NKeyCodec;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.id.SpaceName;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a remote signer may sign (SPEC §16.2): the space and data account it serves, the profiles
 * of its catalogue it may issue with the longest lifetime of each, subjects it never grants
 * beyond the built-in ones ({@code $SYS.>}, another space's prefix), and the clock skew it
 * tolerates on {@code iat}. Read from a closed JSON policy file ({@link #parse}) or the stock
 * policy ({@link #stock}: every profile the plane signs, with the plane's own bounds). Immutable
 * and thread-safe.
 */
public final class SignerPolicy {
    /** The longest lifetime a policy may grant any profile: 30 days. */
    public static final long MAX_LIFETIME_SECONDS = 2_592_000;
    private static final int MAX_FORBIDDEN = 256;
    private static final int MAX_SUBJECT = 256;

    /** The most signatures per principal and minute a policy may allow one profile. */
    public static final int MAX_PER_PRINCIPAL_PER_MINUTE = 100_000;
    /** The stock rate of the callout profiles: signatures per principal ({@code owner.actor}) and minute. */
    public static final int STOCK_CONNECTS_PER_PRINCIPAL_PER_MINUTE = 60;

    /**
     * How long a profile's JWTs may live: at most {@code maxLifetimeSeconds} after the signer's
     * clock; {@code withoutExpiry} admits a JWT with no {@code exp} (the scanners');
     * {@code perPrincipalPerMinute} is how many of them one principal ({@code owner.actor} of the
     * claim's tags, else its {@code sub}) may have signed in a minute, 0 for no rate.
     */
    public record Bound(long maxLifetimeSeconds, boolean withoutExpiry, int perPrincipalPerMinute) {
        /** Checks the ranges (1 s to 30 days; a rate of 0 to 100,000). */
        public Bound {
            if (maxLifetimeSeconds < 1 || maxLifetimeSeconds > MAX_LIFETIME_SECONDS) {
                throw CotalException.badRequest("maxLifetimeSeconds", "must be 1 to " + MAX_LIFETIME_SECONDS);
            }
            if (perPrincipalPerMinute < 0 || perPrincipalPerMinute > MAX_PER_PRINCIPAL_PER_MINUTE) {
                throw CotalException.badRequest("perPrincipalPerMinute", "must be 0 to " + MAX_PER_PRINCIPAL_PER_MINUTE);
            }
        }

        /** A bound with no rate. */
        public Bound(long maxLifetimeSeconds, boolean withoutExpiry) {
            this(maxLifetimeSeconds, withoutExpiry, 0);
        }
    }

    private record PolicyFile(Integer ver, String space, String account, Map<String, BoundFile> profiles,
            List<String> forbiddenSubjects, Integer maxClockSkewSeconds) {
    }

    private record BoundFile(Long maxLifetimeSeconds, Boolean withoutExpiry, Integer perPrincipalPerMinute) {
    }

    private final String space;
    private final String account;
    private final Map<SignerProfile, Bound> profiles;
    private final List<String> forbiddenSubjects;
    private final Duration maxClockSkew;
    private final String digest;

    private SignerPolicy(String space, String account, Map<SignerProfile, Bound> profiles, List<String> forbiddenSubjects,
            Duration maxClockSkew, String digest) {
        this.space = space;
        this.account = account;
        this.profiles = Collections.unmodifiableMap(new EnumMap<>(profiles));
        this.forbiddenSubjects = List.copyOf(forbiddenSubjects);
        this.maxClockSkew = maxClockSkew;
        this.digest = digest;
    }

    /** The stock policy of {@code space}: every profile of the catalogue with the plane's own bound. */
    public static SignerPolicy stock(String space, String account) {
        SpaceName.of(space, "space");
        checkAccount(account);
        Map<SignerProfile, Bound> bounds = new EnumMap<>(SignerProfile.class);
        for (SignerProfile profile : SignerProfile.values()) {
            bounds.put(profile, stockBound(profile));
        }
        return new SignerPolicy(space, account, bounds, List.of(), Duration.ofSeconds(60), "stock");
    }

    private static Bound stockBound(SignerProfile profile) {
        return switch (profile) {
            case CALLOUT_MEMBER, CALLOUT_ENDPOINT_SERVER, CALLOUT_MANAGER_CALLER, CALLOUT_SESSION_CALLER ->
                    new Bound(900, false, STOCK_CONNECTS_PER_PRINCIPAL_PER_MINUTE);
            case RUN_DRIVER -> new Bound(900, false);
            case AUTH_ISSUER_WINDOW -> new Bound(60, false);
            case EP_EFFECT -> new Bound(300, false);
            case AUTH_SCAN, RECORDS_SCAN -> new Bound(86_400, true);
            default -> new Bound(86_400, false);
        };
    }

    /**
     * Reads a policy file (SPEC §16.2). Refused with {@code bad-request} naming the field: another
     * version, a missing or malformed space or account, no profiles, a name outside the
     * catalogue, a bound or a rate out of range, more than 256 forbidden subjects or one that is not a
     * subject, a skew outside 0 to 300 s.
     */
    public static SignerPolicy parse(byte[] json) {
        Objects.requireNonNull(json, "json");
        PolicyFile file = ClosedJson.read(ClosedJson.cotal(), json, PolicyFile.class, "policy");
        if (file.ver() == null || file.ver() != 1) {
            throw CotalException.badRequest("ver", "must be 1");
        }
        if (file.space() == null) {
            throw CotalException.badRequest("space", "missing");
        }
        SpaceName.of(file.space(), "space");
        checkAccount(file.account());
        if (file.profiles() == null || file.profiles().isEmpty()) {
            throw CotalException.badRequest("profiles", "must name at least one profile");
        }
        Map<SignerProfile, Bound> bounds = new EnumMap<>(SignerProfile.class);
        file.profiles().forEach((name, bound) -> {
            String field = "profiles." + ClosedJson.fieldName(name);
            SignerProfile profile = SignerProfile.ofLabel(name, field);
            if (bound == null || bound.maxLifetimeSeconds() == null) {
                throw CotalException.badRequest(field + ".maxLifetimeSeconds", "missing");
            }
            long lifetime = bound.maxLifetimeSeconds();
            if (lifetime < 1 || lifetime > MAX_LIFETIME_SECONDS) {
                throw CotalException.badRequest(field + ".maxLifetimeSeconds", "must be 1 to " + MAX_LIFETIME_SECONDS);
            }
            int rate = bound.perPrincipalPerMinute() == null ? stockBound(profile).perPrincipalPerMinute()
                    : bound.perPrincipalPerMinute();
            if (rate < 0 || rate > MAX_PER_PRINCIPAL_PER_MINUTE) {
                throw CotalException.badRequest(field + ".perPrincipalPerMinute", "must be 0 to "
                        + MAX_PER_PRINCIPAL_PER_MINUTE);
            }
            bounds.put(profile, new Bound(lifetime, Boolean.TRUE.equals(bound.withoutExpiry()), rate));
        });
        List<String> forbidden = file.forbiddenSubjects() == null ? List.of() : file.forbiddenSubjects();
        if (forbidden.size() > MAX_FORBIDDEN) {
            throw CotalException.badRequest("forbiddenSubjects", "at most " + MAX_FORBIDDEN + " subjects");
        }
        for (int i = 0; i < forbidden.size(); i++) {
            String subject = forbidden.get(i);
            if (subject == null || subject.length() > MAX_SUBJECT || !Subjects.valid(subject)) {
                throw CotalException.badRequest("forbiddenSubjects[" + i + "]", "not a subject of at most " + MAX_SUBJECT
                        + " characters");
            }
        }
        int skew = file.maxClockSkewSeconds() == null ? 60 : file.maxClockSkewSeconds();
        if (skew < 0 || skew > 300) {
            throw CotalException.badRequest("maxClockSkewSeconds", "must be 0 to 300");
        }
        return new SignerPolicy(file.space(), file.account(), bounds, forbidden, Duration.ofSeconds(skew), "sha256:"
                + sha256(json));
    }

    private static void checkAccount(String account) {
        if (account == null || !NKeyCodec.isPublic(account, KeyType.ACCOUNT)) {
            throw CotalException.badRequest("account", "must be the data account's public key (A...)");
        }
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw CotalException.internal("SHA-256 unavailable", e);
        }
    }

    /** The space the signer serves. */
    public String space() {
        return space;
    }

    /** The data account ({@code A...}) every signed JWT's {@code issuer_account} names. */
    public String account() {
        return account;
    }

    /** The profiles it may issue, with their bounds. */
    public Map<SignerProfile, Bound> profiles() {
        return profiles;
    }

    /** Subjects never granted beyond {@code $SYS.>} and other spaces' prefixes (always refused). */
    public List<String> forbiddenSubjects() {
        return forbiddenSubjects;
    }

    /** How far a JWT's {@code iat} may be from the signer's clock. */
    public Duration maxClockSkew() {
        return maxClockSkew;
    }

    /** {@code stock}, or {@code sha256:<hex>} of the policy file: what the audit log's start record names. */
    public String digest() {
        return digest;
    }

    @Override
    public String toString() {
        return "SignerPolicy[" + space + ", " + account + ", " + profiles.size() + " profiles, " + digest + "]";
    }
}
