package ai.cotal.core.stores;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;

/**
 * The issued and accepted stores' lifecycle: the bounded-retention check every issuer and
 * resolver applies when binding them, and their recreation from stores of the older shape.
 */
public final class IssuedStores {
    private IssuedStores() {
    }

    /**
     * Refuses unless both stores of {@code space} exist in their current shape: missing is
     * {@code failed-precondition}, pre-retention is {@link IssuedStoreRetentionRefusal}, other
     * drift is {@code failed-precondition}. Every issuer and resolver calls this when it binds.
     */
    public static void requireCurrentShape(Connection connection, String space) {
        JetStreamManagement jsm = SpaceStores.management(connection);
        for (StreamConfiguration expected : new StreamConfiguration[] {StoreSpecs.issued(space), StoreSpecs.accepted(space)}) {
            StreamInfo info = SpaceStores.info(jsm, expected.getName()).orElseThrow(() -> ai.cotal.core.CotalException
                    .failedPrecondition("store " + expected.getName() + " does not exist: run SpaceStores.setup first"));
            SpaceStores.verify(expected, info.getConfiguration());
        }
    }

    /** True when {@code live} is the pre-retention shape of the issued or accepted store {@code expected}. */
    static boolean predatesBoundedRetention(StreamConfiguration expected, StreamConfiguration live) {
        boolean issuedOrAccepted = expected.getName().startsWith("KV_cotal_issued_")
                || expected.getName().startsWith("KV_cotal_accepted_");
        return issuedOrAccepted && (live.getMaxAge() == null || live.getMaxAge().isZero());
    }
}
