package ai.cotal.core.stores;

import ai.cotal.core.CotalException;
import io.nats.client.Connection;
import io.nats.client.api.ServerInfo;
import java.util.List;

/**
 * How many replicas a space's stores have (SPEC §6): {@link #of(int) a fixed count} the embedder
 * chooses (1, 3 or 5: an odd Raft group of at most the five replicas nats-server allows), or
 * {@link #auto()}, derived from the server the setup connection reached: 1 on a single server,
 * 3 on a cluster of three or more servers, 1 on a cluster of two. Immutable and thread-safe.
 */
public final class StoreReplicas {
    private static final StoreReplicas ONE = new StoreReplicas(1);
    private static final StoreReplicas AUTO = new StoreReplicas(0);

    private final int count;

    private StoreReplicas(int count) {
        this.count = count;
    }

    /** One replica: the default, and the only choice on a single server. */
    public static StoreReplicas one() {
        return ONE;
    }

    /** Exactly {@code replicas} replicas: 1, 3 or 5, else {@code bad-request} naming {@code replicas}. */
    public static StoreReplicas of(int replicas) {
        if (replicas != 1 && replicas != 3 && replicas != 5) {
            throw CotalException.badRequest("replicas", "must be 1, 3 or 5 (an odd Raft group nats-server allows), was "
                    + replicas);
        }
        return replicas == 1 ? ONE : new StoreReplicas(replicas);
    }

    /** Derived from the connected server's cluster size when setup runs (see the class comment). */
    public static StoreReplicas auto() {
        return AUTO;
    }

    /** True for {@link #auto()}. */
    public boolean isAuto() {
        return count == 0;
    }

    /** The replica count for the server {@code connection} reached. */
    public int resolve(Connection connection) {
        return isAuto() ? fromServer(connection.getServerInfo()) : count;
    }

    /**
     * 1 on a server without a cluster; on a cluster, 3 when its INFO advertises at least three
     * client URLs ({@code connect_urls}, one per server), else 1. A cluster that advertises none
     * ({@code no_advertise}) cannot be sized: {@code failed-precondition}, asking for a fixed count.
     */
    static int fromServer(ServerInfo info) {
        String cluster = info.getCluster();
        if (cluster == null || cluster.isEmpty()) {
            return 1;
        }
        List<String> urls = info.getConnectURLs();
        if (urls == null || urls.isEmpty()) {
            throw CotalException.failedPrecondition("server " + info.getServerName() + " is in cluster " + cluster
                    + " but advertises no client URLs, so its size is unknown: pass StoreReplicas.of(1|3|5)");
        }
        return urls.stream().distinct().count() >= 3 ? 3 : 1;
    }

    @Override
    public String toString() {
        return isAuto() ? "StoreReplicas[auto]" : "StoreReplicas[" + count + "]";
    }
}
