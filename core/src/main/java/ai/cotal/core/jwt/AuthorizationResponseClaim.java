package ai.cotal.core.jwt;

import java.util.List;

/**
 * The callout's answer: either a user {@code jwt} or an {@code error}. {@code sub} is the
 * connecting client's user nkey, {@code aud} the server id.
 */
public record AuthorizationResponseClaim(String jwt, String error, String issuerAccount, List<String> tags)
        implements NatsClaim {
    public AuthorizationResponseClaim {
        tags = tags == null ? null : List.copyOf(tags);
    }

    @Override
    public ClaimType claimType() {
        return ClaimType.AUTHORIZATION_RESPONSE;
    }
}
