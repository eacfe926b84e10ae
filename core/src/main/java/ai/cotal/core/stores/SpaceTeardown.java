package ai.cotal.core.stores;

import ai.cotal.core.internal.kv.StoreNames;
import ai.cotal.core.trust.SpaceName;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The stream half of a retired space's teardown (SPEC §5.2 "Teardown"): deletes every stream the
 * space owns ({@code StoreNames.allStreams}: message, authority, space, endpoint and artifact
 * streams), each only if it exists, so a replay finishes an interrupted run and a second run
 * deletes nothing. Needs a connection of the space's own account with the {@code teardown}
 * credential, which only a retired space's teardown window admits (the claim half is
 * {@code AccountClaims.teardownWindow}, then {@code AccountClaims.retire}).
 */
public final class SpaceTeardown {
    private static final int STREAM_NOT_FOUND = 10059;

    private SpaceTeardown() {
    }

    /**
     * Deletes the streams of {@code space} that exist; returns those it deleted, in
     * {@code allStreams} order. {@code unavailable} or the broker's code when one cannot be
     * deleted; those deleted before stay deleted and a replay goes on from there.
     */
    public static List<String> deleteStreams(Connection connection, String space) {
        SpaceName.check(space, "space");
        JetStreamManagement jsm = SpaceStores.management(connection);
        List<String> deleted = new ArrayList<>();
        for (String stream : StoreNames.allStreams(space)) {
            try {
                jsm.deleteStream(stream);
                deleted.add(stream);
            } catch (JetStreamApiException e) {
                if (e.getApiErrorCode() != STREAM_NOT_FOUND) {
                    throw SpaceStores.apiFailure("delete " + stream, e);
                }
            } catch (IOException e) {
                throw SpaceStores.unavailable("delete " + stream, e);
            }
        }
        return List.copyOf(deleted);
    }
}
