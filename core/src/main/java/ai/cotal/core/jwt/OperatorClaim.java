package ai.cotal.core.jwt;

import java.util.List;

/** An operator's {@code nats} body. The operator JWT is self-signed ({@code iss == sub}). */
public record OperatorClaim(List<String> signingKeys, String systemAccount, String accountServerUrl,
        List<String> operatorServiceUrls, String assertServerVersion, Boolean strictSigningKeyUsage, List<String> tags)
        implements NatsClaim {
    public OperatorClaim {
        signingKeys = signingKeys == null ? null : List.copyOf(signingKeys);
        operatorServiceUrls = operatorServiceUrls == null ? null : List.copyOf(operatorServiceUrls);
        tags = tags == null ? null : List.copyOf(tags);
    }

    /** An operator whose only claim is its system account. */
    public static OperatorClaim withSystemAccount(String systemAccount) {
        return new OperatorClaim(null, systemAccount, null, null, null, null, null);
    }

    @Override
    public ClaimType claimType() {
        return ClaimType.OPERATOR;
    }
}
