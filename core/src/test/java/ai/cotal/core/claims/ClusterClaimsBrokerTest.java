package ai.cotal.core.claims;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.BrokerClients;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.testbroker.BackendChoice;
import ai.cotal.testbroker.ClusterMember;
import ai.cotal.testbroker.NatsCluster;
import io.nats.client.Connection;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * SPEC §5.1 and §5.5 on a real three-member cluster (operator mode, full resolver on every
 * member): a push expects every member, a member that is down is reported missing, and the same
 * push once it is back lands everywhere. One cluster for the class; each test leaves every member
 * running.
 */
@Tag("broker")
class ClusterClaimsBrokerTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Duration PUSH_WAIT = Duration.ofSeconds(2);
    private static final Set<String> ALL = Set.of("n1", "n2", "n3");
    private static final ClaimsFixture F = new ClaimsFixture();
    private static NatsCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = NatsCluster.start(BackendChoice.detect(), 3, ClusterClaimsBrokerTest::config);
        cluster.awaitMetaLeader(WAIT);
        for (int i = 0; i < 3; i++) {
            cluster.awaitHealthy(i, WAIT);
        }
        // a meta leader is elected with two of three peers; the third joins the group after it
        long deadline = System.nanoTime() + WAIT.toNanos();
        try (Connection system = system()) {
            AccountClaims claims = new AccountClaims(system, F.broker, F.clock);
            while (!claims.members(WAIT).names().equals(ALL) && System.nanoTime() < deadline) {
                Thread.sleep(50); // poll interval: no event announces a peer joining the meta group
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static String config(ClusterMember m) {
        return ServerConfig.render(F.broker, List.of(F.alpha), ServerConfigOptions.builder().transport(Transport.plaintext())
                .storeDir(m.storeDir()).resolver(BrokerClients.fullResolver(m)).cluster(BrokerClients.cluster(m)).build());
    }

    /** The claims connection, on member 0 ({@code n1}) only. */
    private static Connection system() {
        return NatsConnector.builder().server(cluster.member(0).url()).creds(F.claimsCreds).label("account-claims")
                .build().connect();
    }

    @Test
    void anAccountClaimPushWithOneNodeDownReportsTheMissingServerAndSucceedsOnceItIsBack() throws Exception {
        try (Connection system = system()) {
            AccountClaims claims = new AccountClaims(system, F.broker, F.clock);
            ClusterMembers members = claims.members(WAIT);
            assertEquals(ClusterMembers.Source.META_GROUP, members.source());
            assertEquals(ALL, members.names(), "every member of the meta group");
            assertEquals(ALL, Set.copyOf(claims.push(F.beta.jwt(), members, WAIT).serverNames()));
            assertHeldBy(ALL, F.beta.accountPublicKey(), F.beta.jwt());

            int down = cluster.indexOf("n3");
            cluster.kill(down);
            ClusterMembers whileDown = claims.members(WAIT);
            assertEquals(ALL, whileDown.names(), "a member that is down is still a member: " + whileDown);
            String retired = AccountClaims.retire(F.broker, F.beta.jwt(), F.clock.instant().getEpochSecond());
            PushIncomplete incomplete = assertThrows(PushIncomplete.class, () -> claims.push(retired, whileDown, PUSH_WAIT));
            assertEquals(ErrorCode.DEADLINE_EXCEEDED, incomplete.code());
            assertEquals(List.of("n3"), incomplete.missing(), incomplete.getMessage());
            assertEquals(Set.of("n1", "n2"), Set.copyOf(incomplete.result().serverNames()), "the live members answered");
            assertTrue(incomplete.getMessage().contains("[n3]") && incomplete.getMessage().contains("push the same claim"
                    + " again"), incomplete.getMessage());
            assertHeldBy(Set.of("n1", "n2"), F.beta.accountPublicKey(), retired);

            cluster.restart(down);
            cluster.awaitHealthy(down, WAIT);
            PushResult again = claims.push(retired, claims.members(WAIT), WAIT);
            assertEquals(ALL, Set.copyOf(again.serverNames()), "once n3 is back the same push succeeds");
            assertEquals(List.of(), again.missing());
            assertHeldBy(ALL, F.beta.accountPublicKey(), retired);
        }
    }

    @Test
    void aMemberDownSinceTheClusterRestartedIsMissingByItsPeerIdUntilItIsBack() throws Exception {
        SpaceAccountAuth gamma = SpaceAccountAuth.create(F.broker, "gamma", F.clock);
        for (int i = 0; i < 3; i++) {
            cluster.stop(i);
        }
        cluster.restart(0);
        cluster.restart(1);
        cluster.awaitMetaLeader(WAIT);
        try (Connection system = system()) {
            AccountClaims claims = new AccountClaims(system, F.broker, F.clock);
            ClusterMembers members = claims.members(WAIT);
            assertEquals(Set.of("n1", "n2"), members.names(), members.toString());
            assertEquals(1, members.unnamedPeers().size(), "n3 is a member no live server can name: " + members);
            PushIncomplete incomplete = assertThrows(PushIncomplete.class, () -> claims.push(gamma.jwt(), members, WAIT));
            String peer = members.unnamedPeers().iterator().next();
            assertEquals(List.of("peer " + peer + " (name unknown)"), incomplete.missing(), incomplete.getMessage());
            assertEquals(Set.of("n1", "n2"), Set.copyOf(incomplete.result().serverNames()));

            cluster.restart(2);
            cluster.awaitHealthy(2, WAIT);
            ClusterMembers back = awaitNamed(claims);
            assertEquals(ALL, back.names());
            assertEquals(ALL, Set.copyOf(claims.push(gamma.jwt(), back, WAIT).serverNames()));
            assertHeldBy(ALL, gamma.accountPublicKey(), gamma.jwt());
        }
    }

    /** Learns the members until every one is named again (n1 learns n3's name from its first events). */
    private static ClusterMembers awaitNamed(AccountClaims claims) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            ClusterMembers members = claims.members(WAIT);
            if (members.unnamedPeers().isEmpty()) {
                return members;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("a member is still unnamed after " + WAIT + ": " + members);
            }
            Thread.sleep(50);
        }
    }

    /** Each named member's full resolver holds exactly {@code jwt} for {@code account} (what its LOOKUP answers). */
    private static void assertHeldBy(Set<String> names, String account, String jwt) throws IOException {
        for (String name : names) {
            Path file = cluster.member(cluster.indexOf(name)).workDir().resolve("jwt").resolve(account + ".jwt");
            Optional<String> held = Files.exists(file) ? Optional.of(Files.readString(file, StandardCharsets.US_ASCII).trim())
                    : Optional.empty();
            assertEquals(Optional.of(jwt), held, name + " holds the pushed claim");
        }
    }
}
