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
import ai.cotal.core.internal.kv.StoreNames;
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

/**
 * {@code allow_atomic} on the authority stores (SPEC §13.13 "Stores and grants", §6): true on
 * auth, records and admission, false elsewhere, verified like every field; a store of the shape
 * before fenced writes is updated in exactly that field, any other difference still refused.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class AtomicStoresBrokerTest {
    private static final Map<String, Boolean> ATOMIC = Map.of("auth", true, "records", true, "issued", false,
            "accepted", false, "admission", true, "channels", false);
    private final Clock clock = Clock.systemUTC();
    private final BrokerAuth broker = BrokerAuth.create("atomic", clock);
    private final SpaceAccountAuth space = SpaceAccountAuth.create(broker, "alpha", clock);

    private Creds provisioner() {
        return Creds.mint(new SpaceAuth(broker, space), Identity.create(), CredentialProfile.PROVISIONER, MintOptions.defaults());
    }

    private static StreamConfiguration live(JetStreamManagement jsm, String kind) throws Exception {
        return jsm.getStreamInfo(StoreNames.bucketStream(kind, "alpha")).getConfiguration();
    }

    @Test
    void theFencedStoresAllowAtomicPublishAndTheOthersDoNot(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> config(b, broker, List.of(space), List.of()));
        try (Client client = connect(nats, provisioner())) {
            SpaceStores.setupAuthority(client.connection(), "alpha");
            JetStreamManagement jsm = client.connection().jetStreamManagement();
            for (String kind : StoreNames.AUTHORITY_BUCKETS) {
                assertEquals(ATOMIC.get(kind), live(jsm, kind).getAllowAtomicPublish(), kind + " allow_atomic");
            }
        }
    }

    @Test
    void aStoreFromBeforeFencedWritesGainsAllowAtomicAndNothingElseChanges(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> config(b, broker, List.of(space), List.of()));
        try (Client client = connect(nats, provisioner()); Client admin = connect(nats, BrokerClients.unrestricted(space))) {
            JetStreamManagement jsm = admin.connection().jetStreamManagement();
            jsm.addStream(StreamConfiguration.builder(StoreSpecs.auth("alpha")).allowAtomicPublish(false).build());
            jsm.addStream(StreamConfiguration.builder(StoreSpecs.records("alpha")).allowAtomicPublish(false).maxBytes(-1).build());
            jsm.addStream(StreamConfiguration.builder(StoreSpecs.admission("alpha")).allowAtomicPublish(false).build());
            long authSeq = jsm.getStreamInfo("KV_cotal_auth_alpha").getStreamState().getLastSequence();

            SpaceStores.setupAuthority(client.connection(), "alpha");
            for (String kind : List.of("auth", "records", "admission")) {
                StreamConfiguration upgraded = live(jsm, kind);
                assertTrue(upgraded.getAllowAtomicPublish(), kind + " allow_atomic false -> true");
            }
            assertTrue(StoreDrift.differences(StoreSpecs.auth("alpha"), live(jsm, "auth")).isEmpty(), "only allow_atomic changed");
            assertTrue(StoreDrift.differences(StoreSpecs.records("alpha"), live(jsm, "records")).isEmpty(),
                    "an unbounded store of that shape is bounded as well");
            assertTrue(StoreDrift.differences(StoreSpecs.admission("alpha"), live(jsm, "admission")).isEmpty());
            assertEquals(authSeq, jsm.getStreamInfo("KV_cotal_auth_alpha").getStreamState().getLastSequence(), "no message written");
            SpaceStores.setupAuthority(client.connection(), "alpha"); // a second run changes nothing
        }
    }

    @Test
    void aStoreDifferingInAnotherFieldIsStillRefusedAndLeftAsItWas(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> config(b, broker, List.of(space), List.of()));
        try (Client client = connect(nats, provisioner()); Client admin = connect(nats, BrokerClients.unrestricted(space))) {
            JetStreamManagement jsm = admin.connection().jetStreamManagement();
            jsm.addStream(StreamConfiguration.builder(StoreSpecs.auth("alpha")).allowAtomicPublish(false).denyDelete(false).build());
            CotalException refused = assertThrows(CotalException.class,
                    () -> SpaceStores.setupAuthority(client.connection(), "alpha"));
            assertEquals(ErrorCode.FAILED_PRECONDITION, refused.code());
            assertTrue(refused.getMessage().contains("KV_cotal_auth_alpha") && refused.getMessage().contains("allow_atomic")
                    && refused.getMessage().contains("deny_delete"), refused.getMessage());
            assertFalse(live(jsm, "auth").getAllowAtomicPublish(), "left exactly as it was");

            jsm.deleteStream("KV_cotal_auth_alpha");
            jsm.addStream(StreamConfiguration.builder(StoreSpecs.issued("alpha")).allowAtomicPublish(true).build());
            CotalException issued = assertThrows(CotalException.class,
                    () -> SpaceStores.setupAuthority(client.connection(), "alpha"));
            assertTrue(issued.getMessage().contains("KV_cotal_issued_alpha") && issued.getMessage().contains("allow_atomic is true"),
                    issued.getMessage());
            assertTrue(live(jsm, "issued").getAllowAtomicPublish(), "issued keeps false: true is drift, left as it is");
        }
    }
}
