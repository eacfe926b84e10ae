package ai.cotal.core.jwt;

import java.util.List;
import java.util.Map;

/**
 * An account's {@code nats} body. Signing keys are plain account keys (scoped signing keys are
 * not written or read by this SDK). {@code revocations} maps a user key, or {@code "*"}, to the
 * time (unix seconds) at or before which that user's JWTs are refused.
 */
public record AccountClaim(AccountLimits limits, List<String> signingKeys, Map<String, Long> revocations,
        Permissions defaultPermissions, CalloutSettings authorization, String description, List<String> tags)
        implements NatsClaim {
    public AccountClaim {
        signingKeys = signingKeys == null ? null : List.copyOf(signingKeys);
        revocations = revocations == null ? null : Map.copyOf(revocations);
        tags = tags == null ? null : List.copyOf(tags);
    }

    @Override
    public ClaimType claimType() {
        return ClaimType.ACCOUNT;
    }

    /** True when {@code key} is one of this account's signing keys. */
    public boolean hasSigningKey(String key) {
        return signingKeys != null && signingKeys.contains(key);
    }
}
