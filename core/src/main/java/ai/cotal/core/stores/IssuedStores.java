package ai.cotal.core.stores;

import io.nats.client.api.StreamConfiguration;

/**
 * The issued and accepted stores' lifecycle: the bounded-retention check every issuer and
 * resolver applies when binding them, and their recreation from stores of the older shape.
 */
public final class IssuedStores {
    private IssuedStores() {
    }

    /** True when {@code live} is the pre-retention shape of the issued or accepted store {@code expected}. */
    static boolean predatesBoundedRetention(StreamConfiguration expected, StreamConfiguration live) {
        boolean issuedOrAccepted = expected.getName().startsWith("KV_cotal_issued_")
                || expected.getName().startsWith("KV_cotal_accepted_");
        return issuedOrAccepted && (live.getMaxAge() == null || live.getMaxAge().isZero());
    }
}
