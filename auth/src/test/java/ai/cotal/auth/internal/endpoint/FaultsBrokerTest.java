package ai.cotal.auth.internal.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.Grant;
import ai.cotal.auth.Granter;
import ai.cotal.auth.PlaneFixture;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.id.Principal;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.api.StreamConfiguration;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults (issue #11 part 2): the broker killed in the middle of an invocation and of a plane
 * open, and a full store. After each, nothing is half-written that a replay cannot finish, and the
 * component recovers or refuses clearly.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class FaultsBrokerTest {
    private static final Granter.Owner OWNER = new Granter.Owner(EndpointFixture.OWNER, "laptop");

    @TempDir
    Path stateDir;

    private static AuthAuthorityPlane open(PlaneFixture f, NatsBroker nats, Path stateDir) {
        return open(f.options(nats, stateDir));
    }

    private static AuthAuthorityPlane open(ai.cotal.auth.AuthPlaneOptions.Builder options) {
        AuthAuthorityPlane plane = AuthAuthorityPlane.open(options.serviceEndpoints(true).build());
        plane.ledger().grantActor(Principal.of(EndpointFixture.OWNER, "laptop"), Grant.of(List.of(), List.of(), List.of()));
        return plane;
    }

    @Test
    void aBrokerKilledMidInvocationLeavesWhatAReplayOnTheNextPlaneFinishes(NatsBrokers brokers) throws Exception {
        PlaneFixture f = new PlaneFixture();
        NatsBroker nats = brokers.start(f::config);
        AuthAuthorityPlane first = open(f, nats, stateDir);
        ServiceEndpointEngine engine = ((ai.cotal.auth.internal.plane.AuthorityPlaneImpl) first).serviceEndpointEngine();
        HostRequest.Register register = new HostRequest.Register(EndpointFixture.rid(), "weather", EndpointFixture.iid(),
                EndpointFixture.CONTRACT, List.of("ask"));
        engine.hooks(new Hooks() {
            @Override
            public void beforeStep(String key, Plan.Tag tag, EffectConnection effect) {
                if (tag == Plan.Tag.INTEND) {
                    nats.kill(); // after bind and admit landed
                    effect.gone().join();
                }
            }
        });
        HostResult held = first.serviceEndpoints().orElseThrow().admit(OWNER, register);
        assertEquals(HostResult.Status.HELD, held.status());
        assertNotNull(held.operationId(), "the binding landed: the answer names its operation");
        first.fenced().get(10, TimeUnit.SECONDS); // the scanners went with the broker: the plane fenced

        nats.restart();
        // a restarted broker is a new server: no sweep can prove the old scanners gone, so the
        // next open refuses until the operator, who killed it, says so (the oracle below)
        ai.cotal.auth.PlaneClaimRefusal unknown = assertThrows(ai.cotal.auth.PlaneClaimRefusal.class,
                () -> open(f, nats, stateDir.resolve("second")));
        assertEquals(ai.cotal.auth.PlaneClaimRefusal.Reason.UNKNOWN, unknown.reason());
        try (AuthAuthorityPlane second = open(f.options(nats, stateDir.resolve("second"))
                .livenessOracle(PlaneFixture.operatorSaysGone()))) {
            assertEquals(2, second.claim().generation(), "the next plane reclaimed the space");
            HostResult replay = second.serviceEndpoints().orElseThrow().admit(OWNER, register);
            assertEquals(HostResult.Status.PENDING, replay.status(), String.valueOf(replay.reason()));
            assertEquals(held.operationId(), replay.operationId(), "the replay finished the same operation");
        }
    }

    @Test
    void aPlaneOpenWithoutItsBrokerRefusesClearlyAndTheNextOpenSucceeds(NatsBrokers brokers) {
        PlaneFixture f = new PlaneFixture();
        NatsBroker nats = brokers.start(f::config);
        nats.kill();
        CotalException refused = assertThrows(CotalException.class, () -> open(f, nats, stateDir));
        assertEquals(ErrorCode.UNAVAILABLE, refused.code());
        assertTrue(refused.getMessage().contains("cannot connect"), refused.getMessage());
        nats.restart();
        try (AuthAuthorityPlane plane = open(f, nats, stateDir)) {
            assertEquals(1, plane.claim().generation(), "nothing was claimed by the refused open");
        }
    }

    @Test
    void aFullStoreRefusesBeforeAnyWriteAndAReplayCompletesOnceThereIsRoom(NatsBrokers brokers) throws Exception {
        PlaneFixture f = new PlaneFixture();
        NatsBroker nats = brokers.start(b -> ServerConfig.render(f.broker, List.of(f.space), ServerConfigOptions.builder()
                .transport(Transport.plaintext()).storeDir(b.storeDir()).maxFileStore(8L * 1024 * 1024).build()));
        try (Connection admin = f.admin(nats)) { // every store reserves its max_bytes: fit the six in the 8 MiB (SPEC §6)
            for (StreamConfiguration spec : ai.cotal.core.stores.StoreSpecs.authority("alpha")) {
                admin.jetStreamManagement().addStream(StreamConfiguration.builder(spec).maxBytes(1024 * 1024).build());
            }
        }
        try (AuthAuthorityPlane plane = open(f, nats, stateDir); Connection admin = f.admin(nats)) {
            String fill = "$KV." + ai.cotal.core.internal.kv.StoreNames.bucket("auth", "alpha") + ".fill.";
            int refusedSizes = 0;
            int n = 0;
            for (int size : new int[] {512 * 1024, 64 * 1024, 8 * 1024, 1024, 128, 16}) {
                while (true) { // fill the auth store with ever smaller blocks until even the smallest is refused
                    try {
                        admin.jetStream().publish(fill + n++, new byte[size]);
                    } catch (JetStreamApiException e) {
                        refusedSizes++; // maximum bytes exceeded
                        break;
                    }
                }
            }
            assertEquals(6, refusedSizes, "the store is full down to 16-byte messages");
            long before = admin.jetStreamManagement().getStreamInfo("KV_" + ai.cotal.core.internal.kv.StoreNames.bucket("auth",
                    "alpha")).getStreamState().getLastSequence();
            HostRequest.Register register = new HostRequest.Register(EndpointFixture.rid(), "weather",
                    EndpointFixture.iid(), EndpointFixture.CONTRACT, List.of("ask"));
            CotalException refused = assertThrows(CotalException.class, () -> plane.serviceEndpoints().orElseThrow()
                    .admit(OWNER, register));
            assertEquals(ErrorCode.FAILED_PRECONDITION, refused.code(), refused.getMessage());
            assertEquals(before, admin.jetStreamManagement().getStreamInfo("KV_" + ai.cotal.core.internal.kv.StoreNames
                    .bucket("auth", "alpha")).getStreamState().getLastSequence(), "nothing was written");

            admin.jetStreamManagement().purgeStream("KV_" + ai.cotal.core.internal.kv.StoreNames.bucket("auth", "alpha"),
                    io.nats.client.PurgeOptions.subject(fill + ">"));
            HostResult pending = plane.serviceEndpoints().orElseThrow().admit(OWNER, register);
            assertEquals(HostResult.Status.PENDING, pending.status(), String.valueOf(pending.reason()));
        }
    }
}
