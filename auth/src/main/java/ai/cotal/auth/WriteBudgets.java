package ai.cotal.auth;

import ai.cotal.core.CotalException;

/**
 * How much one principal, and one space, may make the plane write in a rolling minute (SPEC
 * §13.20): credential-row mints (each successful token exchange) and manager-caller issuances
 * (each connect under a new nonce). Each limit is 1 to 1,000,000; a refused attempt writes nothing
 * and answers {@code resource-exhausted} naming the limit. {@link #defaults()} are what the plane
 * uses unless told otherwise.
 */
public record WriteBudgets(int mintsPerPrincipal, int mintsPerSpace, int issuancesPerPrincipal, int issuancesPerSpace) {
    private static final int MAX = 1_000_000;

    public WriteBudgets {
        check(mintsPerPrincipal, "mintsPerPrincipal");
        check(mintsPerSpace, "mintsPerSpace");
        check(issuancesPerPrincipal, "issuancesPerPrincipal");
        check(issuancesPerSpace, "issuancesPerSpace");
    }

    /** 60 and 600 mints, 30 and 300 issuances, per principal and per space, per minute. */
    public static WriteBudgets defaults() {
        return new WriteBudgets(AuthPlaneOptions.DEFAULT_MINTS_PER_PRINCIPAL, AuthPlaneOptions.DEFAULT_MINTS_PER_SPACE,
                AuthPlaneOptions.DEFAULT_ISSUANCES_PER_PRINCIPAL, AuthPlaneOptions.DEFAULT_ISSUANCES_PER_SPACE);
    }

    private static void check(int limit, String field) {
        if (limit < 1 || limit > MAX) {
            throw CotalException.badRequest(field, "must be 1 to 1,000,000 per minute");
        }
    }
}
