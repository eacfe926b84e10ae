package ai.cotal.core.config;

import ai.cotal.core.CotalException;
import java.util.ArrayList;
import java.util.List;

/**
 * One server's place in a NATS cluster (SPEC §3.4): its {@code server_name} (unique in the
 * cluster; JetStream's Raft groups name their peers by it), the cluster's {@code name}, the route
 * listen address and the routes to the other servers. Rendered by {@link ServerConfig#render} as
 * {@code server_name} and a {@code cluster {}} block. Validated in {@link Builder#build()};
 * immutable and thread-safe.
 */
public final class ClusterConfig {
    private static final String NAME = "[A-Za-z0-9_-]{1,64}";
    private static final String HOST = "[A-Za-z0-9.\\-]+|\\[[0-9A-Fa-f:]+\\]";

    private final String name;
    private final String serverName;
    private final String listenHost;
    private final int listenPort;
    private final List<String> routes;

    private ClusterConfig(Builder b) {
        this.name = b.name;
        this.serverName = b.serverName;
        this.listenHost = b.listenHost;
        this.listenPort = b.listenPort;
        this.routes = List.copyOf(b.routes);
    }

    /** A builder; the cluster name, server name and listen port must be given. */
    public static Builder builder() {
        return new Builder();
    }

    /** The cluster's name: the same on every server of the cluster. */
    public String name() {
        return name;
    }

    /** This server's name: unique in the cluster. */
    public String serverName() {
        return serverName;
    }

    /** The host the route listener binds. */
    public String listenHost() {
        return listenHost;
    }

    /** The route (cluster) port. */
    public int listenPort() {
        return listenPort;
    }

    /** The other servers' route addresses, {@code host:port} each. */
    public List<String> routes() {
        return routes;
    }

    /** Builds {@link ClusterConfig}. */
    public static final class Builder {
        private String name;
        private String serverName;
        private String listenHost = "127.0.0.1";
        private int listenPort;
        private final List<String> routes = new ArrayList<>();

        private Builder() {
        }

        /** The cluster's name ({@code [A-Za-z0-9_-]}, at most 64 characters). */
        public Builder name(String name) {
            this.name = name;
            return this;
        }

        /** This server's name ({@code [A-Za-z0-9_-]}, at most 64 characters). */
        public Builder serverName(String serverName) {
            this.serverName = serverName;
            return this;
        }

        /** The route listener: host (default {@code 127.0.0.1}) and port. */
        public Builder listen(String host, int port) {
            this.listenHost = host;
            this.listenPort = port;
            return this;
        }

        /** A route to another server of the cluster. */
        public Builder route(String host, int port) {
            String field = "cluster.routes[" + routes.size() + "]";
            if (host == null || !host.matches(HOST)) {
                throw CotalException.badRequest(field, "must be a host name or IP address");
            }
            checkPort(field, port);
            routes.add(host + ":" + port);
            return this;
        }

        public ClusterConfig build() {
            if (name == null || !name.matches(NAME)) {
                throw CotalException.badRequest("cluster.name", "must be 1 to 64 of [A-Za-z0-9_-]");
            }
            if (serverName == null || !serverName.matches(NAME)) {
                throw CotalException.badRequest("cluster.serverName", "must be 1 to 64 of [A-Za-z0-9_-]");
            }
            if (listenHost == null || !listenHost.matches(HOST)) {
                throw CotalException.badRequest("cluster.listen", "must be a host name or IP address");
            }
            checkPort("cluster.listen", listenPort);
            if (routes.contains(listenHost + ":" + listenPort)) {
                throw CotalException.badRequest("cluster.routes", "must not route to this server's own listener");
            }
            return new ClusterConfig(this);
        }

        private static void checkPort(String field, int port) {
            if (port < 1 || port > 65535) {
                throw CotalException.badRequest(field, "port must be 1 to 65535");
            }
        }
    }
}
