package ai.cotal.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.BrokerClients;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.stores.SpaceStores;
import ai.cotal.core.stores.StoreReplicas;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.testbroker.ClusterMember;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.testbroker.NatsCluster;
import io.nats.client.Connection;
import io.nats.client.api.StreamInfo;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * SPEC §3.4 route TLS on a real three-member cluster: the members form the cluster and replicate
 * over mutually authenticated routes, and a route port refuses a peer that does not present a
 * certificate the cluster's CA file verifies (plaintext, or TLS without a client certificate).
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class ClusterRouteTlsBrokerTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private final Clock clock = Clock.systemUTC();
    private final BrokerAuth broker = BrokerAuth.create("cluster", clock);
    private final SpaceAccountAuth space = SpaceAccountAuth.create(broker, "alpha", clock);
    private final Map<String, ClusterMember> members = new ConcurrentHashMap<>();
    @TempDir
    Path certs;

    private String config(ClusterMember m) {
        members.put(m.serverName(), m);
        ClusterConfig.Builder cluster = ClusterConfig.builder().name(m.clusterName()).serverName(m.serverName())
                .listen(m.host(), m.clusterPort()).tls(new ClusterConfig.RouteTls(certs.resolve("cert.pem"),
                        certs.resolve("key.pem"), certs.resolve("cert.pem")));
        m.peerClusterPorts().forEach(port -> cluster.route(m.host(), port));
        return ServerConfig.render(broker, List.of(space), ServerConfigOptions.builder().transport(Transport.plaintext())
                .storeDir(m.storeDir()).cluster(cluster.build()).build());
    }

    @Test
    void membersReplicateOverMutualTlsRoutesAndARoutePortRefusesAPeerWithoutACertificate(NatsBrokers brokers)
            throws Exception {
        TestCertificates.make(certs);
        NatsCluster cluster = brokers.startCluster(this::config);
        cluster.members().forEach(m -> assertTrue(m.config().contains("    verify: true\n"), m.config()));
        cluster.awaitMetaLeader(WAIT);
        Creds admin = BrokerClients.unrestricted(space);
        cluster.awaitAccountJetStream(i -> BrokerClients.plain(cluster.member(i), admin), WAIT);
        try (Connection client = BrokerClients.plain(cluster.member(0), admin)) {
            List<String> streams = SpaceStores.setupAuthority(client, "alpha", StoreReplicas.of(3));
            StreamInfo info = client.jetStreamManagement().getStreamInfo(streams.get(0));
            assertEquals(3, info.getConfiguration().getReplicas());
            assertFalse(info.getClusterInfo().getLeader() == null || info.getClusterInfo().getLeader().isEmpty());
            assertEquals(2, info.getClusterInfo().getReplicas().size(), "two followers reached over TLS routes");
        }

        ClusterMember first = members.get(cluster.serverName(0));
        // a route speaks TLS before anything else: a plaintext peer gets no INFO, only the close
        try (Socket plain = new Socket(first.host(), first.clusterPort())) {
            plain.setSoTimeout(5_000);
            OutputStream out = plain.getOutputStream();
            out.write("CONNECT {\"verbose\":false,\"name\":\"rogue\"}\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertEquals(-1, readOrEnd(plain.getInputStream()), "the route port closes a plaintext peer, saying nothing");
        }
        assertEquals(null, tlsInfo(first, TestCertificates.trusting(certs)),
                "a TLS peer that trusts the cluster but presents no certificate of its own is refused");
        String info = tlsInfo(first, TestCertificates.presenting(certs));
        assertTrue(info != null && info.startsWith("INFO ") && info.contains("\"tls_required\":true"),
                "a peer presenting the cluster's certificate is answered: " + info);
    }

    /**
     * The route's first line after a TLS handshake as a peer with {@code context}; null when the
     * route refused the peer (the handshake or the first read failed, or the port closed).
     */
    private static String tlsInfo(ClusterMember member, javax.net.ssl.SSLContext context) throws IOException {
        try (SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(member.host(), member.clusterPort())) {
            tls.setSoTimeout(5_000);
            try {
                tls.startHandshake();
                return new BufferedReader(new InputStreamReader(tls.getInputStream(), StandardCharsets.UTF_8)).readLine();
            } catch (java.net.SocketTimeoutException silent) {
                throw new AssertionError("the route port neither answered nor refused within 5 s", silent);
            } catch (IOException refused) { // javax.net.ssl.SSLException, or a reset: the server demanded a certificate
                return null;
            }
        }
    }

    /** The first byte the peer sends, or -1 when it closed (or reset) the connection first. */
    private static int readOrEnd(java.io.InputStream in) throws IOException {
        try {
            return in.read();
        } catch (java.net.SocketException reset) {
            return -1;
        }
    }
}
