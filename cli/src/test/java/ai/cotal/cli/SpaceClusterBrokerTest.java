package ai.cotal.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.config.AccountResolver;
import ai.cotal.core.config.ClusterConfig;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.testbroker.ClusterMember;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.testbroker.NatsCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * SPEC §7.5 on a real three-member cluster: the command's claim pushes expect every member, a
 * retirement with one member down exits 1 naming it, and the same command once it is back
 * succeeds on all three.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class SpaceClusterBrokerTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private final Clock clock = Clock.systemUTC();
    private ByteArrayOutputStream out = new ByteArrayOutputStream();
    private ByteArrayOutputStream err = new ByteArrayOutputStream();

    @TempDir
    Path root;

    private int run(String... args) {
        out = new ByteArrayOutputStream();
        err = new ByteArrayOutputStream();
        return CotalAuth.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    /** A member rendering the root's tenants (as {@code up} does) with its own resolver directory and a cluster block. */
    private String config(ClusterMember m) {
        List<Tenants.Tenant> tenants = new Tenants(root, clock).read();
        ClusterConfig.Builder member = ClusterConfig.builder().name(m.clusterName()).serverName(m.serverName())
                .listen(m.host(), m.clusterPort());
        m.peerClusterPorts().forEach(port -> member.route(m.host(), port));
        return ServerConfig.render(new Tenants(root, clock).broker(), tenants.stream().map(Tenants.Tenant::account).toList(),
                ServerConfigOptions.builder().transport(Transport.plaintext()).storeDir(m.storeDir())
                        .resolver(AccountResolver.full(m.workDir().resolve("jwt"), 1000, Duration.ofMinutes(2)))
                        .extraAccounts(tenants.stream().map(t -> t.callout().jwt()).toList()).cluster(member.build()).build());
    }

    @Test
    void aRetirementWithOneMemberDownFailsNamingItAndSucceedsOnceItIsBack(NatsBrokers brokers) {
        assertEquals(0, run("space", "add", "--root", root.toString(), "--space", "alpha"), err.toString());
        NatsCluster cluster = brokers.startCluster(this::config);
        cluster.awaitMetaLeader(WAIT);
        for (int i = 0; i < 3; i++) { // healthy: each member has joined the meta group the pushes read
            cluster.awaitHealthy(i, WAIT);
        }
        String server = cluster.member(0).url();
        assertEquals(0, run("space", "add", "--root", root.toString(), "--space", "beta", "--server", server), err.toString());
        assertTrue(out.toString().contains("n1, n2, n3"), "pushed to every member: " + out);

        cluster.kill(cluster.indexOf("n3"));
        assertEquals(1, run("space", "retire", "--root", root.toString(), "--space", "beta", "--server", server), out.toString());
        assertTrue(err.toString().contains("deadline-exceeded") && err.toString().contains("from [n3]")
                && err.toString().contains("run the same command again"), err.toString());

        cluster.restart(cluster.indexOf("n3"));
        cluster.awaitHealthy(cluster.indexOf("n3"), WAIT);
        assertEquals(0, run("space", "retire", "--root", root.toString(), "--space", "beta", "--server", server), err.toString());
        assertTrue(out.toString().lines().anyMatch(l -> l.contains("beta") && l.contains("retired") && l.contains("n1, n2, n3")),
                out.toString());
    }
}
