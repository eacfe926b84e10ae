package ai.cotal.core.jwt;

import java.util.List;

/**
 * An account's {@code authorization} block in operator mode: the callout users, the accounts the
 * callout may place users in, and the curve key requests are sealed to.
 */
public record CalloutSettings(List<String> authUsers, List<String> allowedAccounts, String xkey) {
    public CalloutSettings {
        authUsers = authUsers == null ? null : List.copyOf(authUsers);
        allowedAccounts = allowedAccounts == null ? null : List.copyOf(allowedAccounts);
    }
}
