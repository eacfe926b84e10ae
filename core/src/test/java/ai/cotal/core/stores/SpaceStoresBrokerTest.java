package ai.cotal.core.stores;

import static ai.cotal.core.BrokerClients.config;
import static ai.cotal.core.BrokerClients.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.KeyValue;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class SpaceStoresBrokerTest {
    private final Clock clock = Clock.systemUTC();
    private final BrokerAuth broker = BrokerAuth.create("stores", clock);
    private final SpaceAccountAuth space = SpaceAccountAuth.create(broker, "alpha", clock);

    private NatsBroker start(NatsBrokers brokers) {
        return brokers.start(b -> config(b, broker, List.of(space), List.of()));
    }

    private Creds provisioner() {
        return Creds.mint(new SpaceAuth(broker, space), Identity.create(), CredentialProfile.PROVISIONER, MintOptions.defaults());
    }

    private static Map<String, StreamInfo> infos(JetStreamManagement jsm, List<String> names) {
        return names.stream().collect(Collectors.toMap(n -> n, n -> {
            try {
                return jsm.getStreamInfo(n);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }));
    }

    @Test
    void setupTwiceIsANoOpTheSecondTime(NatsBrokers brokers) throws Exception {
        NatsBroker nats = start(brokers);
        try (Client client = connect(nats, provisioner())) {
            List<String> names = SpaceStores.setup(client.connection(), "alpha");
            List<String> authority = List.of("KV_cotal_auth_alpha", "KV_cotal_records_alpha", "KV_cotal_issued_alpha",
                    "KV_cotal_accepted_alpha", "KV_cotal_admission_alpha", "KV_cotal_channels_alpha");
            assertEquals(authority, names.subList(0, 6));
            assertEquals(new java.util.TreeSet<>(ai.cotal.core.internal.kv.StoreNames.allStreams("alpha")),
                    new java.util.TreeSet<>(names), "every stream the space owns");
            JetStreamManagement jsm = client.connection().jetStreamManagement();
            Map<String, StreamInfo> before = infos(jsm, names);
            assertEquals(names, SpaceStores.setup(client.connection(), "alpha"));
            Map<String, StreamInfo> after = infos(jsm, names);
            for (String name : names) {
                assertEquals(before.get(name).getCreateTime(), after.get(name).getCreateTime(), name + " was recreated");
                assertEquals(before.get(name).getConfiguration().toJson(), after.get(name).getConfiguration().toJson());
            }
        }
    }

    @Test
    void aStoreAlteredBehindItsBackIsRefusedAndLeftAsItWas(NatsBrokers brokers) throws Exception {
        NatsBroker nats = start(brokers);
        try (Client client = connect(nats, provisioner()); Client admin = connect(nats, BrokerClients.unrestricted(space))) {
            JetStreamManagement jsm = admin.connection().jetStreamManagement();
            jsm.addStream(StreamConfiguration.builder(StoreSpecs.records("alpha")).denyPurge(false).build());
            CotalException e = assertThrows(CotalException.class, () -> SpaceStores.setup(client.connection(), "alpha"));
            assertEquals(ErrorCode.FAILED_PRECONDITION, e.code());
            assertTrue(e.getMessage().contains("KV_cotal_records_alpha") && e.getMessage().contains("deny_purge"), e.getMessage());
            assertFalse(jsm.getStreamInfo("KV_cotal_records_alpha").getConfiguration().getDenyPurge(), "left as it was");

            jsm.deleteStream("KV_cotal_records_alpha");
            SpaceStores.setup(client.connection(), "alpha");
            jsm.updateStream(StreamConfiguration.builder(StoreSpecs.auth("alpha")).allowDirect(true).build());
            CotalException later = assertThrows(CotalException.class, () -> SpaceStores.setup(client.connection(), "alpha"));
            assertTrue(later.getMessage().contains("KV_cotal_auth_alpha") && later.getMessage().contains("allow_direct"),
                    later.getMessage());
            assertTrue(jsm.getStreamInfo("KV_cotal_auth_alpha").getConfiguration().getAllowDirect(), "left as it was");
        }
    }

    @Test
    void theFirstDefaultDeliveryClassStays(NatsBrokers brokers) throws Exception {
        NatsBroker nats = start(brokers);
        try (Client client = connect(nats, provisioner())) {
            SpaceStores.setup(client.connection(), "alpha");
            assertEquals(Optional.empty(), DeliveryClass.readDefault(client.connection(), "alpha"));
            CotalException none = assertThrows(CotalException.class,
                    () -> DeliveryClass.resolve(Optional.empty(), client.connection(), "alpha"));
            assertEquals(ErrorCode.FAILED_PRECONDITION, none.code());
            assertTrue(DeliveryClass.ensureDefault(client.connection(), "alpha", DeliveryClass.DURABLE));
            assertFalse(DeliveryClass.ensureDefault(client.connection(), "alpha", DeliveryClass.LIVE));
            assertEquals(Optional.of(DeliveryClass.DURABLE), DeliveryClass.readDefault(client.connection(), "alpha"));
            assertEquals(DeliveryClass.DURABLE, DeliveryClass.resolve(Optional.empty(), client.connection(), "alpha"));
            assertEquals(DeliveryClass.LIVE, DeliveryClass.resolve(Optional.of(DeliveryClass.LIVE), client.connection(), "alpha"));
        }
        assertThrows(CotalException.class, () -> DeliveryClass.parse("eventual", "deliveryClass"));
    }

    /**
     * A deleted {@code =defaults} is data loss for every reader and for {@code ensureDefault},
     * which writes nothing over the tombstone (a KV create would): the class is never inferred.
     */
    @Test
    void aDeletedDefaultIsDataLossAndIsNotWrittenAgain(NatsBrokers brokers) throws Exception {
        NatsBroker nats = start(brokers);
        try (Client client = connect(nats, provisioner()); Client admin = connect(nats, BrokerClients.unrestricted(space))) {
            SpaceStores.setup(client.connection(), "alpha");
            assertTrue(DeliveryClass.ensureDefault(client.connection(), "alpha", DeliveryClass.DURABLE));
            KeyValue channels = admin.connection().keyValue("cotal_channels_alpha");
            channels.delete(DeliveryClass.DEFAULTS_KEY); // behind the SDK's back
            for (java.util.function.Supplier<Object> read : List.<java.util.function.Supplier<Object>>of(
                    () -> DeliveryClass.readDefault(client.connection(), "alpha"),
                    () -> DeliveryClass.resolve(Optional.empty(), client.connection(), "alpha"),
                    () -> DeliveryClass.ensureDefault(client.connection(), "alpha", DeliveryClass.LIVE))) {
                CotalException lost = assertThrows(CotalException.class, read::get);
                assertEquals(ErrorCode.DATA_LOSS, lost.code(), lost.getMessage());
                assertTrue(lost.getMessage().contains("=defaults was deleted"), lost.getMessage());
            }
            assertEquals(null, channels.get(DeliveryClass.DEFAULTS_KEY), "nothing was written over the tombstone");
            assertEquals(2, admin.connection().jetStreamManagement().getStreamInfo("KV_cotal_channels_alpha")
                    .getStreamState().getLastSequence(), "the put and the delete, nothing after");
        }
    }

    @Test
    void theBrokerRefusesASecondAcceptedWriteAndAnyPurgeOrDelete(NatsBrokers brokers) throws Exception {
        NatsBroker nats = start(brokers);
        try (Client client = connect(nats, provisioner()); Client admin = connect(nats, BrokerClients.unrestricted(space))) {
            SpaceStores.setup(client.connection(), "alpha");
            KeyValue accepted = admin.connection().keyValue("cotal_accepted_alpha");
            accepted.put("accepted.v1.token1", "{}".getBytes(StandardCharsets.UTF_8));
            JetStreamApiException second = assertThrows(JetStreamApiException.class,
                    () -> accepted.put("accepted.v1.token1", "{\"other\":1}".getBytes(StandardCharsets.UTF_8)));
            assertTrue(second.getMessage().contains("maximum messages per subject exceeded"), second.getMessage());
            JetStreamManagement jsm = admin.connection().jetStreamManagement();
            JetStreamApiException purge = assertThrows(JetStreamApiException.class, () -> jsm.purgeStream("KV_cotal_accepted_alpha"));
            assertTrue(purge.getMessage().contains("purge"), purge.getMessage());
            JetStreamApiException delete = assertThrows(JetStreamApiException.class,
                    () -> jsm.deleteMessage("KV_cotal_accepted_alpha", 1));
            assertTrue(delete.getMessage().contains("delete"), delete.getMessage());
            assertEquals(1, jsm.getStreamInfo("KV_cotal_accepted_alpha").getStreamState().getMsgCount());
        }
    }

    @Test
    void brokersOlderThan212AreRefused() {
        CotalException e = assertThrows(CotalException.class, () -> SpaceStores.requireBroker("2.11.9"));
        assertTrue(e.getMessage().contains("2.12"), e.getMessage());
        SpaceStores.requireBroker("2.12.0");
        SpaceStores.requireBroker("2.15.1");
        SpaceStores.requireBroker("3.0.0-beta");
        assertThrows(CotalException.class, () -> SpaceStores.requireBroker("2.9.10"));
        assertThrows(CotalException.class, () -> SpaceStores.requireBroker("garbage"));
    }
}
