package ai.cotal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.stores.StoreReplicas;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.ClusterMember;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.testbroker.NatsCluster;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.ClusterInfo;
import io.nats.client.api.StreamInfo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** SPEC §13.12 store replicas on a real three-member cluster: the plane's open sets its authority stores up R3. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class ClusterPlaneBrokerTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private final PlaneFixture f = new PlaneFixture();

    @TempDir
    Path stateDir;

    private String config(ClusterMember m) {
        return ServerConfig.render(f.broker, List.of(f.space), ServerConfigOptions.builder().transport(Transport.plaintext())
                .storeDir(m.storeDir()).cluster(PlaneFixture.cluster(m)).build());
    }

    private AuthPlaneOptions.Builder options(NatsCluster cluster) {
        return AuthPlaneOptions.builder().servers(List.of(cluster.urls())).space("alpha").stateDir(stateDir)
                .secretStore(f.store).signer(new SpaceAuth(f.broker, f.space).strip()).clock(f.clock);
    }

    @Test
    void provisioningASpaceOnTheClusterGivesEveryAuthorityStoreThreeReplicasAndALeader(NatsBrokers brokers)
            throws Exception {
        NatsCluster cluster = brokers.startCluster(this::config);
        cluster.awaitMetaLeader(WAIT);
        cluster.awaitAccountJetStream(i -> f.admin(cluster.member(i)), WAIT);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(options(cluster).storeReplicas(StoreReplicas.of(3)).build());
             Connection admin = admin(cluster)) {
            JetStreamManagement jsm = admin.jetStreamManagement();
            List<String> authority = jsm.getStreamNames().stream()
                    .filter(name -> name.startsWith("KV_cotal_") && name.endsWith("_alpha")).sorted().toList();
            assertEquals(List.of("KV_cotal_accepted_alpha", "KV_cotal_admission_alpha", "KV_cotal_auth_alpha",
                    "KV_cotal_channels_alpha", "KV_cotal_issued_alpha", "KV_cotal_records_alpha"), authority);
            for (String stream : authority) {
                StreamInfo info = awaitLeader(jsm, stream);
                assertEquals(3, info.getConfiguration().getReplicas(), stream);
                assertEquals(2, info.getClusterInfo().getReplicas().size(), stream + " has two followers besides its leader "
                        + info.getClusterInfo().getLeader());
            }
        }

        CotalException drift = assertThrows(CotalException.class,
                () -> AuthAuthorityPlane.open(options(cluster).build()).close());
        assertEquals(ErrorCode.FAILED_PRECONDITION, drift.code(), drift.getMessage());
        assertTrue(drift.getMessage().contains("num_replicas is 3, expected 1"), "a plane left at one replica refuses"
                + " the R3 stores as drift: " + drift.getMessage());
    }

    /** The stream's info once its Raft group names a leader (the info is answered by the leader). */
    private static StreamInfo awaitLeader(JetStreamManagement jsm, String stream) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            StreamInfo info = jsm.getStreamInfo(stream);
            ClusterInfo placement = info.getClusterInfo();
            if (placement != null && placement.getLeader() != null && !placement.getLeader().isEmpty()) {
                return info;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(stream + " has no leader after " + WAIT + ": " + placement);
            }
            Thread.sleep(50);
        }
    }

    /** A data-account user without limits, on every member: test inspection only. */
    private Connection admin(NatsCluster cluster) {
        Identity identity = Identity.create();
        String jwt = NatsJwt.encode(ClaimSet.of(identity.id(), "test-admin", UserClaim.of(null, null,
                f.space.accountPublicKey(), null), f.clock.instant()), f.space.signing());
        return NatsConnector.builder().servers(List.of(cluster.urls())).creds(new Creds(jwt, identity)).label("test-admin")
                .build().connect();
    }
}
