package ai.cotal.auth;

import ai.cotal.core.CotalException;

/**
 * How much one principal, and one space, may make the plane write in a rolling minute (SPEC
 * §13.20): credential-row mints (each successful token exchange), manager-caller issuances (each
 * connect under a new nonce) and service-endpoint writes (each owner request that binds a new
 * request id). Each limit is 1 to 1,000,000; this record is the one place that rule is checked,
 * and its refusal ({@code bad-request}) names the matching {@link AuthPlaneOptions.Builder}
 * option. A refused attempt writes nothing and answers {@code resource-exhausted} naming the
 * limit. {@link #defaults()} are what the plane uses unless told otherwise.
 */
public record WriteBudgets(int mintsPerPrincipal, int mintsPerSpace, int issuancesPerPrincipal, int issuancesPerSpace,
        int endpointWritesPerPrincipal, int endpointWritesPerSpace) {
    private static final int MAX = 1_000_000;

    public WriteBudgets {
        check(mintsPerPrincipal, "mintsPerPrincipalPerMinute");
        check(mintsPerSpace, "mintsPerSpacePerMinute");
        check(issuancesPerPrincipal, "issuancesPerPrincipalPerMinute");
        check(issuancesPerSpace, "issuancesPerSpacePerMinute");
        check(endpointWritesPerPrincipal, "endpointWritesPerPrincipalPerMinute");
        check(endpointWritesPerSpace, "endpointWritesPerSpacePerMinute");
    }

    /**
     * 60 and 600 mints, 30 and 300 issuances, 30 and 300 service-endpoint writes, per principal
     * and per space, per minute.
     */
    public static WriteBudgets defaults() {
        return new WriteBudgets(AuthPlaneOptions.DEFAULT_MINTS_PER_PRINCIPAL, AuthPlaneOptions.DEFAULT_MINTS_PER_SPACE,
                AuthPlaneOptions.DEFAULT_ISSUANCES_PER_PRINCIPAL, AuthPlaneOptions.DEFAULT_ISSUANCES_PER_SPACE,
                AuthPlaneOptions.DEFAULT_ENDPOINT_WRITES_PER_PRINCIPAL, AuthPlaneOptions.DEFAULT_ENDPOINT_WRITES_PER_SPACE);
    }

    private static void check(int limit, String field) {
        if (limit < 1 || limit > MAX) {
            throw CotalException.badRequest(field, "must be between 1 and 1,000,000");
        }
    }
}
