package ai.cotal.core.stores;

import ai.cotal.core.internal.kv.StoreNames;
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
import io.nats.client.JetStreamManagement;
import io.nats.client.api.StreamConfiguration;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Every authority store is bounded (SPEC §6); an unbounded store of the older shape is bounded, nothing else changes. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class StoreBoundsBrokerTest {
    private final Clock clock = Clock.systemUTC();
    private final BrokerAuth broker = BrokerAuth.create("stores", clock);
    private final SpaceAccountAuth space = SpaceAccountAuth.create(broker, "alpha", clock);

    private Creds provisioner() {
        return Creds.mint(new SpaceAuth(broker, space), Identity.create(), CredentialProfile.PROVISIONER, MintOptions.defaults());
    }

    private static long maxBytes(JetStreamManagement jsm, String stream) throws Exception {
        return jsm.getStreamInfo(stream).getConfiguration().getMaxBytes();
    }

    @Test
    void everyStoreIsCreatedWithItsBound(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> config(b, broker, List.of(space), List.of()));
        try (Client client = connect(nats, provisioner())) {
            SpaceStores.setup(client.connection(), "alpha");
            JetStreamManagement jsm = client.connection().jetStreamManagement();
            Map<String, Long> bounds = Map.of("auth", StoreSpecs.AUTH_BYTES, "records", StoreSpecs.RECORDS_BYTES,
                    "issued", StoreSpecs.ISSUED_BYTES, "accepted", StoreSpecs.ACCEPTED_BYTES,
                    "admission", StoreSpecs.ADMISSION_BYTES, "channels", StoreSpecs.CHANNELS_BYTES);
            for (String kind : StoreNames.AUTHORITY_BUCKETS) {
                long bound = maxBytes(jsm, StoreNames.bucketStream(kind, "alpha"));
                assertEquals(bounds.get(kind), bound, kind);
                assertTrue(bound > 0, kind + " is bounded");
            }
        }
    }

    @Test
    void anUnboundedStoreIsBoundedAndEveryOtherDifferenceStillRefused(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> config(b, broker, List.of(space), List.of()));
        try (Client client = connect(nats, provisioner()); Client admin = connect(nats, BrokerClients.unrestricted(space))) {
            JetStreamManagement jsm = admin.connection().jetStreamManagement();
            // the shape every store had before bounds
            jsm.addStream(StreamConfiguration.builder(StoreSpecs.auth("alpha")).maxBytes(-1).build());
            jsm.addStream(StreamConfiguration.builder(StoreSpecs.issued("alpha")).maxBytes(-1).build());
            // unbounded and drifted in another field
            jsm.addStream(StreamConfiguration.builder(StoreSpecs.records("alpha")).maxBytes(-1).denyPurge(false).build());

            CotalException refused = assertThrows(CotalException.class, () -> SpaceStores.setup(client.connection(), "alpha"));
            assertEquals(ErrorCode.FAILED_PRECONDITION, refused.code());
            assertTrue(refused.getMessage().contains("KV_cotal_records_alpha") && refused.getMessage().contains("deny_purge"),
                    refused.getMessage());
            assertEquals(-1, maxBytes(jsm, "KV_cotal_records_alpha"), "a drifted store is left exactly as it was");
            assertFalse(jsm.getStreamInfo("KV_cotal_records_alpha").getConfiguration().getDenyPurge());
            assertEquals(StoreSpecs.AUTH_BYTES, maxBytes(jsm, "KV_cotal_auth_alpha"), "the unbounded auth store was bounded");

            jsm.deleteStream("KV_cotal_records_alpha");
            SpaceStores.setup(client.connection(), "alpha");
            assertEquals(StoreSpecs.ISSUED_BYTES, maxBytes(jsm, "KV_cotal_issued_alpha"), "bounded by the update");
            assertEquals(StoreSpecs.RECORDS_BYTES, maxBytes(jsm, "KV_cotal_records_alpha"), "created bounded");
            StreamConfiguration issued = jsm.getStreamInfo("KV_cotal_issued_alpha").getConfiguration();
            assertEquals(StoreSpecs.ISSUED_RETENTION, issued.getMaxAge(), "only max_bytes changed");
            assertTrue(StoreDrift.differences(StoreSpecs.issued("alpha"), issued).isEmpty());
        }
    }

    @Test
    void anOperatorsBoundIsKeptAndATinyOneIsRefused(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> config(b, broker, List.of(space), List.of()));
        try (Client client = connect(nats, provisioner()); Client admin = connect(nats, BrokerClients.unrestricted(space))) {
            SpaceStores.setup(client.connection(), "alpha");
            JetStreamManagement jsm = admin.connection().jetStreamManagement();
            jsm.updateStream(StreamConfiguration.builder(StoreSpecs.channels("alpha")).maxBytes(1024 * 1024).build());
            SpaceStores.setup(client.connection(), "alpha");
            assertEquals(1024 * 1024, maxBytes(jsm, "KV_cotal_channels_alpha"), "an operator's bound stays");

            jsm.updateStream(StreamConfiguration.builder(StoreSpecs.admission("alpha")).maxBytes(1024).build());
            CotalException refused = assertThrows(CotalException.class, () -> SpaceStores.setup(client.connection(), "alpha"));
            assertTrue(refused.getMessage().contains("KV_cotal_admission_alpha") && refused.getMessage().contains("max_bytes"),
                    refused.getMessage());
            assertEquals(1024, maxBytes(jsm, "KV_cotal_admission_alpha"), "left as it was");
        }
    }
}
