package ai.cotal.core.jwt;

import java.util.List;

/**
 * A user's {@code nats} body: permissions and limits side by side, as on the wire.
 * {@code issuer_account} is set when the user is signed by one of the account's signing keys.
 */
public record UserClaim(Permission pub, Permission sub, ResponsePermission resp, List<String> src,
        List<TimeRange> times, String timesLocation, Long subs, Long data, Long payload, Boolean bearerToken,
        Boolean proxyRequired, List<String> allowedConnectionTypes, String issuerAccount, List<String> tags)
        implements NatsClaim {
    public UserClaim {
        src = src == null ? null : List.copyOf(src);
        times = times == null ? null : List.copyOf(times);
        allowedConnectionTypes = allowedConnectionTypes == null ? null : List.copyOf(allowedConnectionTypes);
        tags = tags == null ? null : List.copyOf(tags);
    }

    /** A user with these permissions, unlimited subs/data/payload, signed for {@code issuerAccount}. */
    public static UserClaim of(Permission pub, Permission sub, String issuerAccount, List<String> tags) {
        return new UserClaim(pub, sub, null, null, null, null, -1L, -1L, -1L, null, null, null, issuerAccount, tags);
    }

    @Override
    public ClaimType claimType() {
        return ClaimType.USER;
    }
}
