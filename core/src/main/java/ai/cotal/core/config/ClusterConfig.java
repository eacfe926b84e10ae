package ai.cotal.core.config;

import ai.cotal.core.CotalException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One server's place in a NATS cluster (SPEC §3.4): its {@code server_name} (unique in the
 * cluster; JetStream's Raft groups name their peers by it), the cluster's {@code name}, the route
 * listen address and the routes to the other servers. Rendered by {@link ServerConfig#render} as
 * {@code server_name} and a {@code cluster {}} block. Routes may be mutual TLS ({@link RouteTls});
 * a route listener reachable off this machine must be. Validated in {@link Builder#build()};
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
    private final RouteTls tls;

    /**
     * Mutual TLS on every route, in and out: this server presents {@code certFile} (with
     * {@code keyFile}) to its peers and accepts a peer, inbound or outbound, only with a
     * certificate that {@code caFile} verifies (rendered {@code verify: true}; an outbound route
     * also checks the peer's name against the route's host). One certificate may serve for both
     * directions when it allows both server and client authentication (or names no extended key
     * usage). Paths must not be blank ({@code bad-request} naming {@code cluster.tls.certFile},
     * {@code keyFile} or {@code caFile}); the files are nats-server's to read.
     */
    public record RouteTls(Path certFile, Path keyFile, Path caFile) {
        public RouteTls {
            check(certFile, "certFile");
            check(keyFile, "keyFile");
            check(caFile, "caFile");
        }

        private static void check(Path path, String field) {
            if (path == null || path.toString().isBlank()) {
                throw CotalException.badRequest("cluster.tls." + field, "must not be blank");
            }
        }
    }

    private ClusterConfig(Builder b) {
        this.name = b.name;
        this.serverName = b.serverName;
        this.listenHost = b.listenHost;
        this.listenPort = b.listenPort;
        this.routes = List.copyOf(b.routes);
        this.tls = b.tls;
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

    /** Mutual TLS on the routes; empty: plaintext routes (a loopback listener only). */
    public Optional<RouteTls> tls() {
        return Optional.ofNullable(tls);
    }

    /** Builds {@link ClusterConfig}. */
    public static final class Builder {
        private String name;
        private String serverName;
        private String listenHost = "127.0.0.1";
        private int listenPort;
        private final List<String> routes = new ArrayList<>();
        private RouteTls tls;

        private Builder() {
        }

        /** Mutual TLS on every route (see {@link RouteTls}); required unless the listener is loopback. */
        public Builder tls(RouteTls tls) {
            this.tls = tls;
            return this;
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
            if (tls == null && !loopback(listenHost)) {
                throw CotalException.badRequest("cluster.tls", "a route listener on " + listenHost + " needs mutual TLS:"
                        + " whatever reaches a plaintext route port joins the cluster and receives every account's"
                        + " messages; give ClusterConfig.RouteTls, or listen on a loopback address");
            }
            for (String route : routes) {
                String host = route.substring(0, route.lastIndexOf(':'));
                if (tls == null && !loopback(host)) {
                    throw CotalException.badRequest("cluster.tls", "a route to " + host + " needs mutual TLS: a plaintext"
                            + " route carries every account's messages in the clear; give ClusterConfig.RouteTls, or"
                            + " keep the cluster on this machine");
                }
            }
            return new ClusterConfig(this);
        }

        /** {@code localhost}, {@code 127.x.x.x} or {@code [::1]}: a listener nothing off this machine reaches. */
        private static boolean loopback(String host) {
            return host.equals("localhost") || host.matches("127(\\.[0-9]{1,3}){3}") || host.equals("[::1]");
        }

        private static void checkPort(String field, int port) {
            if (port < 1 || port > 65535) {
                throw CotalException.badRequest(field, "port must be 1 to 65535");
            }
        }
    }
}
