package ai.cotal.auth.internal.plane;

import ai.cotal.auth.Grant;
import ai.cotal.auth.internal.connect.AuthorityConnection;
import ai.cotal.auth.internal.connect.AuthorityRole;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.ConnectAttempt;
import ai.cotal.auth.PlaneFixture;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import ai.cotal.core.stores.SpaceStores;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import io.nats.client.KeyValue;
import io.nats.client.api.MessageInfo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Issue #16.1: a credential row expires with its credential (a broker TTL); a revoked row never comes back. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class CredentialRowTtlBrokerTest {
    private static final String STREAM = "KV_cotal_auth_alpha";
    private static final String UID = "abcdefghijklmnopqrstuvwxyz";
    private final PlaneFixture f = new PlaneFixture();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

    @TempDir
    Path stateDir;

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    @Test
    void thePlaneWritesEveryCredentialRowWithTheCredentialsLifePlusGrace(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
             Connection admin = f.admin(nats)) {
            ActorRow row = plane.ledger().grantActor(Principal.of("u_abcdefghijklmnopqrstuvwxyz", "laptop"),
                    Grant.of(List.of("chat"), List.of(), List.of()));
            CredentialId id = plane.credentials().mint(row.principal(), row.lifecycleUid()).id();
            MessageInfo stored = admin.jetStreamManagement().getLastMessage(STREAM, "$KV.cotal_auth_alpha.cred." + id);
            assertEquals("960s", stored.getHeaders().getFirst("Nats-TTL"), "900 s (the longest bearer) + 60 s grace");
            assertEquals(Duration.ofSeconds(960), CredentialRows.ROW_TTL);
        }
    }

    @Test
    void anExpiredRowReadsAsAbsentIsRefusedAtConnectAndARevokedRowNeverReturns(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        ai.cotal.core.trust.SpaceSigner signer = new ai.cotal.core.trust.SpaceAuth(f.broker, f.space).strip();
        try (AuthorityConnection writer = AuthorityConnection.open(List.of(nats.url()), signer, AuthorityRole.WRITER,
                Duration.ofHours(1), Clock.systemUTC(), scheduler, null, why -> { });
             AuthorityConnection reader = AuthorityConnection.open(List.of(nats.url()), signer, AuthorityRole.READER,
                Duration.ofHours(1), Clock.systemUTC(), scheduler, null, why -> { });
             Connection admin = f.admin(nats)) {
            SpaceStores.setupAuthority(writer.connection(), "alpha");
            CredentialRows rows = new CredentialRows("alpha", writer.connection(), reader, Clock.systemUTC(),
                    Duration.ofSeconds(2));
            String expiring = rows.mint("u_ownerownerownerownerowners", "laptop", UID);
            String revoked = rows.mint("u_ownerownerownerownerowners", "laptop", UID);
            ConnectAttempt live = new ConnectAttempt(Principal.of("u_ownerownerownerownerowners", "laptop"), List.of(), new LifecycleUid(UID), new CredentialId(expiring));
            ConnectAttempt gone = new ConnectAttempt(Principal.of("u_ownerownerownerownerowners", "laptop"), List.of(), new LifecycleUid(UID), new CredentialId(revoked));
            rows.requireLive(live);
            rows.revoke(revoked);
            KeyValue kv = admin.keyValue("cotal_auth_alpha");

            long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
            while (kv.get("cred." + expiring) != null) { // the broker removes the row at its TTL
                assertTrue(System.nanoTime() < deadline, "the row outlived its TTL");
                Thread.sleep(100);
            }
            MessageInfo marker = admin.jetStreamManagement().getLastMessage(STREAM, "$KV.cotal_auth_alpha.cred." + expiring);
            assertEquals("MaxAge", marker.getHeaders().getFirst("Nats-Marker-Reason"), "removed by the broker's TTL");
            CotalException expired = assertThrows(CotalException.class, () -> rows.requireLive(live));
            assertEquals(ErrorCode.PERMISSION_DENIED, expired.code());
            assertTrue(expired.getMessage().contains("revoked, expired or never issued"), expired.getMessage());
            assertFalse(rows.createAgain("cred." + expiring, "{}".getBytes(StandardCharsets.UTF_8)),
                    "the strict create refuses the expiry marker");

            // the revoked row's TTL has passed too: its tombstone is still the last word
            assertNull(kv.get("cred." + revoked));
            assertEquals("DEL", admin.jetStreamManagement().getLastMessage(STREAM, "$KV.cotal_auth_alpha.cred." + revoked)
                    .getHeaders().getFirst("KV-Operation"));
            assertFalse(rows.createAgain("cred." + revoked, "{}".getBytes(StandardCharsets.UTF_8)),
                    "a revoked row is never written back");
            assertEquals(ErrorCode.PERMISSION_DENIED, assertThrows(CotalException.class, () -> rows.requireLive(gone)).code());
        }
    }
}
