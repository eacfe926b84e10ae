package ai.cotal.testbroker;

import java.nio.file.Path;
import java.util.List;

/**
 * One server of a {@link NatsCluster}, as its config function sees it before it starts: the
 * cluster's name, this server's name, ports and directories, and the route addresses of its peers.
 *
 * @param clusterName the cluster's name, the same on every member
 * @param serverName  this server's name ({@code n1}, {@code n2}, ...), unique in the cluster
 * @param host        the loopback host every port listens on
 * @param clientPort  this server's client port
 * @param clusterPort this server's route port
 * @param peerClusterPorts the route ports of the other members
 * @param storeDir    this server's JetStream store directory, kept across restarts
 * @param workDir     this server's work directory (resolver directory, certificates)
 */
public record ClusterMember(String clusterName, String serverName, String host, int clientPort, int clusterPort,
        List<Integer> peerClusterPorts, Path storeDir, Path workDir) {
    public ClusterMember {
        peerClusterPorts = List.copyOf(peerClusterPorts);
    }

    /** {@code server_name} and the {@code cluster {}} block, as nats-server config text. */
    public String clusterBlock() {
        StringBuilder out = new StringBuilder("server_name: \"" + serverName + "\"\n");
        out.append("cluster {\n  name: \"").append(clusterName).append("\"\n  listen: \"").append(host).append(':')
                .append(clusterPort).append("\"\n  routes: [\n");
        peerClusterPorts.forEach(p -> out.append("    \"nats-route://").append(host).append(':').append(p).append("\"\n"));
        return out.append("  ]\n}\n").toString();
    }

    /** The default member config: the cluster block and JetStream in {@link #storeDir()}, no auth. */
    public String defaultConfig() {
        return clusterBlock() + "jetstream {\n  store_dir: \"" + storeDir + "\"\n}\n";
    }
}
