package ai.cotal.core.stores;

import static ai.cotal.core.BrokerClients.config;
import static ai.cotal.core.BrokerClients.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.BrokerClients;
import ai.cotal.core.BrokerClients.Client;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.internal.kv.StoreNames;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The whole space of SPEC §6.1 on a real broker: every stream and bucket, idempotent, drift refused, TTLs reconciled. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class WholeSpaceBrokerTest {
    private final Clock clock = Clock.systemUTC();
    private final BrokerAuth broker = BrokerAuth.create("whole-space", clock);
    private final SpaceAccountAuth space = SpaceAccountAuth.create(broker, "alpha", clock);

    private Creds provisioner() {
        return Creds.mint(new SpaceAuth(broker, space), Identity.create(), CredentialProfile.PROVISIONER, MintOptions.defaults());
    }

    private static List<StreamConfiguration> every() {
        List<StreamConfiguration> every = new ArrayList<>(StoreSpecs.authority("alpha"));
        every.addAll(SpaceStreamSpecs.all("alpha"));
        return every;
    }

    private static Map<String, StreamInfo> infos(JetStreamManagement jsm) throws Exception {
        Map<String, StreamInfo> out = new LinkedHashMap<>();
        for (String name : StoreNames.allStreams("alpha")) {
            out.put(name, jsm.getStreamInfo(name));
        }
        return out;
    }

    @Test
    void setupCreatesEveryStoreWithItsLimitsAndASecondSetupChangesNothing(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> config(b, broker, List.of(space), List.of()));
        try (Client client = connect(nats, provisioner())) {
            SpaceStores.setup(client.connection(), "alpha");
            JetStreamManagement jsm = client.connection().jetStreamManagement();
            Map<String, StreamInfo> before = infos(jsm);
            for (StreamConfiguration expected : every()) {
                StreamConfiguration live = before.get(expected.getName()).getConfiguration();
                assertEquals(List.of(), StoreDrift.differences(expected, live), expected.getName());
                assertTrue(live.getMaxBytes() > 0 && live.getMaxBytes() == expected.getMaxBytes(), expected.getName() + " bounded");
            }
            StreamConfiguration chat = before.get("CHAT_alpha").getConfiguration();
            assertEquals(List.of("cotal.alpha.chat.>"), chat.getSubjects());
            assertEquals(1000, chat.getMaxMsgsPerSubject());
            assertTrue(chat.getAllowDirect());
            assertEquals(Duration.ofHours(2), before.get("DLV_alpha").getConfiguration().getDuplicateWindow());
            assertEquals(StorageType.Memory, before.get("KV_cotal_presence_alpha").getConfiguration().getStorageType());
            assertEquals(Duration.ofSeconds(6), before.get("KV_cotal_presence_alpha").getConfiguration().getMaxAge());
            assertTrue(before.get("EPT_alpha").getConfiguration().getAllowMsgSchedules());
            assertEquals(6_320L * 1024 * 1024, SpaceStreamSpecs.reservedFileBytes("alpha"), "SPEC §6.1 reservation");

            SpaceStores.setup(client.connection(), "alpha");
            Map<String, StreamInfo> after = infos(jsm);
            for (String name : before.keySet()) {
                assertEquals(before.get(name).getCreateTime(), after.get(name).getCreateTime(), name + " was recreated");
                assertEquals(before.get(name).getConfiguration().toJson(), after.get(name).getConfiguration().toJson(), name);
            }
        }
    }

    @Test
    void aDriftedStoreIsRefusedNamingEveryFieldAndLeftUntouched(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> config(b, broker, List.of(space), List.of()));
        try (Client client = connect(nats, provisioner()); Client admin = connect(nats, BrokerClients.unrestricted(space))) {
            JetStreamManagement jsm = admin.connection().jetStreamManagement();
            StreamConfiguration drifted = StreamConfiguration.builder(StoreSpecs.admission("alpha")).denyPurge(false)
                    .allowDirect(true).build();
            jsm.addStream(drifted);
            jsm.addStream(StreamConfiguration.builder(SpaceStreamSpecs.messageStreams("alpha").get(0))
                    .maxMessagesPerSubject(10).build());
            CotalException e = assertThrows(CotalException.class, () -> SpaceStores.setup(client.connection(), "alpha"));
            assertEquals(ErrorCode.FAILED_PRECONDITION, e.code());
            assertTrue(e.getMessage().contains("KV_cotal_admission_alpha") && e.getMessage().contains("deny_purge")
                    && e.getMessage().contains("allow_direct"), e.getMessage());
            assertEquals(List.of(), StoreDrift.differences(drifted, jsm.getStreamInfo("KV_cotal_admission_alpha")
                    .getConfiguration()), "left as it was");

            jsm.deleteStream("KV_cotal_admission_alpha");
            CotalException chat = assertThrows(CotalException.class, () -> SpaceStores.setup(client.connection(), "alpha"));
            assertTrue(chat.getMessage().contains("CHAT_alpha") && chat.getMessage().contains("max_msgs_per_subject"),
                    chat.getMessage());
            assertEquals(10, jsm.getStreamInfo("CHAT_alpha").getConfiguration().getMaxMsgsPerSubject(), "left as it was");
        }
    }

    @Test
    void aTtlBucketWithAnotherExpiryIsReconciledAndProvedByItsCanary(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> config(b, broker, List.of(space), List.of()));
        try (Client client = connect(nats, provisioner()); Client admin = connect(nats, BrokerClients.unrestricted(space))) {
            JetStreamManagement jsm = admin.connection().jetStreamManagement();
            StreamConfiguration presence = SpaceStreamSpecs.buckets("alpha").get(3);
            jsm.addStream(StreamConfiguration.builder(presence).maxAge(Duration.ofMinutes(1)).duplicateWindow(Duration.ofMinutes(1))
                    .build());
            SpaceStores.setup(client.connection(), "alpha");
            StreamConfiguration live = jsm.getStreamInfo(presence.getName()).getConfiguration();
            assertEquals(SpaceStreamSpecs.PRESENCE_TTL, live.getMaxAge());
            assertEquals(SpaceStreamSpecs.PRESENCE_TTL, live.getDuplicateWindow());

            jsm.updateStream(StreamConfiguration.builder(live).allowDirect(false).maxAge(Duration.ofMinutes(1)).build());
            CotalException e = assertThrows(CotalException.class, () -> SpaceStores.setup(client.connection(), "alpha"));
            assertTrue(e.getMessage().contains("allow_direct") && e.getMessage().contains("max_age"), e.getMessage());
            assertEquals(Duration.ofMinutes(1), jsm.getStreamInfo(presence.getName()).getConfiguration().getMaxAge(),
                    "a TTL bucket drifted in anything else is left as it was");
        }
    }
}
