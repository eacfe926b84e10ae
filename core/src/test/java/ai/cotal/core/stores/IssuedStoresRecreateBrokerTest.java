package ai.cotal.core.stores;

import static ai.cotal.core.BrokerClients.config;
import static ai.cotal.core.BrokerClients.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.BrokerClients;
import ai.cotal.core.BrokerClients.Client;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.JetStreamManagement;
import io.nats.client.KeyValue;
import io.nats.client.api.StreamConfiguration;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Recreating issued-authority stores from before bounded retention, against the real broker. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class IssuedStoresRecreateBrokerTest {
    private final Clock clock = Clock.systemUTC();
    private final BrokerAuth broker = BrokerAuth.create("recreate", clock);
    private final SpaceAccountAuth space = SpaceAccountAuth.create(broker, "alpha", clock);
    private NatsBroker nats;

    @TempDir
    Path temp;

    private Creds mint(CredentialProfile profile) {
        return Creds.mint(new SpaceAuth(broker, space), Identity.create(), profile, MintOptions.defaults());
    }

    /** The stores as an older release created them: issued and accepted without max_age, with rows. */
    @BeforeEach
    void oldShape(NatsBrokers brokers) throws Exception {
        nats = brokers.start(b -> config(b, broker, List.of(space), List.of()));
        try (Client admin = connect(nats, BrokerClients.unrestricted(space))) {
            JetStreamManagement jsm = admin.connection().jetStreamManagement();
            jsm.addStream(StreamConfiguration.builder(StoreSpecs.issued("alpha")).maxAge(Duration.ZERO).build());
            jsm.addStream(StreamConfiguration.builder(StoreSpecs.accepted("alpha")).maxAge(Duration.ZERO).build());
            KeyValue issued = admin.connection().keyValue("cotal_issued_alpha");
            for (int i = 0; i < 3; i++) {
                issued.put("v1.row" + i, ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8));
            }
            admin.connection().keyValue("cotal_accepted_alpha").put("accepted.v1.t", "{}".getBytes(StandardCharsets.UTF_8));
        }
    }

    private long messages(Client client, String stream) throws Exception {
        return client.connection().jetStreamManagement().getStreamInfo(stream).getStreamState().getMsgCount();
    }

    @Test
    void backsUpVerifiesRecreatesAndTheBackupRestores() throws Exception {
        Path backupDir = temp.resolve("backup");
        IssuedStores.Recreation recreation;
        try (Client recreate = connect(nats, mint(CredentialProfile.ISSUED_STORE_RECREATE))) {
            recreation = IssuedStores.recreate(recreate.connection(), "alpha", backupDir);
        }
        assertEquals(List.of("KV_cotal_issued_alpha", "KV_cotal_accepted_alpha"), List.copyOf(recreation.backups().keySet()));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(backupDir)));
        Path issuedBackup = backupDir.resolve("KV_cotal_issued_alpha");
        assertTrue(Files.exists(issuedBackup.resolve("backup.json")));
        assertTrue(Files.size(issuedBackup.resolve("stream.arc.s2")) > 0, "snapshot data written");
        assertEquals(new StreamBackup.Counts(3, 3), StreamBackup.counts(issuedBackup));

        try (Client provisioner = connect(nats, mint(CredentialProfile.PROVISIONER))) {
            SpaceStores.setup(provisioner.connection(), "alpha");
            assertEquals(0, messages(provisioner, "KV_cotal_issued_alpha"), "recreated empty in the current shape");
        }
        try (Client admin = connect(nats, BrokerClients.unrestricted(space))) {
            admin.connection().jetStreamManagement().deleteStream("KV_cotal_issued_alpha"); // a rollback
        }
        try (Client restore = connect(nats, mint(CredentialProfile.ISSUED_STORE_RESTORE))) {
            IssuedStores.restore(restore.connection(), issuedBackup);
        }
        try (Client admin = connect(nats, BrokerClients.unrestricted(space))) {
            assertEquals(3, messages(admin, "KV_cotal_issued_alpha"), "the backup restores every row");
            assertEquals("{\"n\":2}", new String(admin.connection().keyValue("cotal_issued_alpha").get("v1.row2").getValue(),
                    StandardCharsets.UTF_8));
        }
    }

    @Test
    void refusesWhenNothingPredatesBoundedRetention() throws Exception {
        try (Client admin = connect(nats, BrokerClients.unrestricted(space))) {
            admin.connection().jetStreamManagement().deleteStream("KV_cotal_issued_alpha");
            admin.connection().jetStreamManagement().deleteStream("KV_cotal_accepted_alpha");
        }
        try (Client provisioner = connect(nats, mint(CredentialProfile.PROVISIONER))) {
            SpaceStores.setup(provisioner.connection(), "alpha");
        }
        Path backupDir = temp.resolve("nothing");
        try (Client recreate = connect(nats, mint(CredentialProfile.ISSUED_STORE_RECREATE))) {
            IssuedStoreRecreateRefusal e = assertThrows(IssuedStoreRecreateRefusal.class,
                    () -> IssuedStores.recreate(recreate.connection(), "alpha", backupDir));
            assertTrue(e.getMessage().contains("nothing to recreate"), e.getMessage());
        }
        assertFalse(Files.exists(backupDir), "nothing written");
    }

    @Test
    void refusesAnExistingBackupDirectory() throws Exception {
        Path backupDir = Files.createDirectory(temp.resolve("exists"));
        try (Client recreate = connect(nats, mint(CredentialProfile.ISSUED_STORE_RECREATE))) {
            assertThrows(IssuedStoreRecreateRefusal.class, () -> IssuedStores.recreate(recreate.connection(), "alpha", backupDir));
            assertEquals(3, messages(recreate, "KV_cotal_issued_alpha"));
        }
        try (var files = Files.list(backupDir)) {
            assertEquals(0, files.count());
        }
    }

    @Test
    void aMessageAddedBetweenBackupAndCheckDeletesNothing() throws Exception {
        try (Client recreate = connect(nats, mint(CredentialProfile.ISSUED_STORE_RECREATE));
             Client admin = connect(nats, BrokerClients.unrestricted(space))) {
            IssuedStoreRecreateRefusal e = assertThrows(IssuedStoreRecreateRefusal.class, () -> IssuedStores.recreate(
                    recreate.connection(), "alpha", temp.resolve("raced"), () -> {
                        try {
                            admin.connection().keyValue("cotal_issued_alpha").put("v1.late", "{}".getBytes(StandardCharsets.UTF_8));
                        } catch (Exception ex) {
                            throw new IllegalStateException(ex);
                        }
                    }));
            assertTrue(e.getMessage().contains("nothing deleted"), e.getMessage());
            assertEquals(4, messages(admin, "KV_cotal_issued_alpha"));
            assertEquals(1, messages(admin, "KV_cotal_accepted_alpha"));
        }
    }

    @Test
    void theRecreateCredentialCannotTouchAnyOtherStream() throws Exception {
        try (Client admin = connect(nats, BrokerClients.unrestricted(space))) {
            admin.connection().jetStreamManagement().addStream(StoreSpecs.auth("alpha"));
        }
        try (Client recreate = connect(nats, mint(CredentialProfile.ISSUED_STORE_RECREATE))) {
            recreate.connection().publish("$JS.API.STREAM.DELETE.KV_cotal_auth_alpha", new byte[0]);
            String violation = recreate.violation().get(5, TimeUnit.SECONDS);
            assertTrue(violation.contains("KV_cotal_auth_alpha"), violation);
        }
        try (Client recreate = connect(nats, mint(CredentialProfile.ISSUED_STORE_RECREATE))) {
            recreate.connection().publish("$JS.API.STREAM.SNAPSHOT.KV_cotal_auth_alpha", new byte[0]);
            assertTrue(recreate.violation().get(5, TimeUnit.SECONDS).contains("SNAPSHOT"));
        }
        try (Client admin = connect(nats, BrokerClients.unrestricted(space))) {
            assertTrue(admin.connection().jetStreamManagement().getStreamNames().contains("KV_cotal_auth_alpha"));
        }
    }
}
