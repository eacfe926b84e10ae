package ai.cotal.auth.internal.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.PlaneClaimRefusal;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #18 part 5: an effect connection that fails to close (SPEC §13.1 "Close", the hosted
 * composition's close contract). The plane's close rejects with the claim still held; until a
 * retried close succeeds, discovery, both scanners and the other standing connections stay live on
 * the broker, so a second plane for the same space is refused ({@code live-peer}). The retry
 * closes the effect connection first, releases the claim, and the next plane takes it.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class EffectCloseFailureBrokerTest {
    private static final List<String> PLANE_CONNECTIONS = List.of("cotal:auth-mint:alpha", "cotal:auth-reader:alpha",
            "cotal:auth-barrier:alpha", "cotal:auth-issuer:alpha", "cotal:ep-discovery:alpha", "cotal:auth-scan:alpha",
            "cotal:records-scan:alpha");
    private static final String EFFECT = "cotal:ep-effect:alpha";

    @TempDir
    Path stateDir;

    private static String planeRow(EndpointFixture x) throws Exception {
        return new String(x.admin.keyValue(x.bucket).get("plane").getValue(), StandardCharsets.UTF_8);
    }

    @Test
    void anEffectConnectionThatWillNotCloseKeepsThePlaneLiveAndASecondPlaneOut(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir.resolve("first"))) {
            AtomicBoolean failClose = new AtomicBoolean(true);
            x.engine.hooks(new Hooks() {
                @Override
                public void beforeEffectClose(EffectConnection effect) {
                    if (failClose.get()) {
                        throw new IllegalStateException("injected: the close did not complete");
                    }
                }
            });
            String iid = EndpointFixture.iid();
            HostResult pending = x.call(x.owner, x.register("weather", iid));
            assertEquals(HostResult.Status.PENDING, pending.status());

            CotalException kept = assertThrows(CotalException.class, x.plane::close);
            assertEquals(ErrorCode.UNAVAILABLE, kept.code());
            assertTrue(kept.getMessage().contains("call close() again"), kept.getMessage());
            assertTrue(planeRow(x).contains("\"state\":\"held\""), "the claim stays held");
            assertFalse(x.plane.fenced().isDone(), "a close that did not finish fences nothing");
            CotalException refused = assertThrows(CotalException.class, () -> x.call(x.owner,
                    new HostRequest.InstanceRead("weather", iid)));
            assertEquals(ErrorCode.UNAVAILABLE, refused.code(), "the closing plane refuses new host calls");

            List<String> live = SpaceConnections.names(x.f, x.nats);
            assertTrue(live.containsAll(PLANE_CONNECTIONS), "discovery, both scanners and the standing connections"
                    + " stay live: " + live);
            assertTrue(live.contains(EFFECT), "the effect connection that failed to close is still owned: " + live);
            Discovery discovery = x.engine.discovery();
            assertEquals(Connection.Status.CONNECTED, discovery.connection().getStatus());
            assertNotNull(x.get(Rows.gate("weather", iid)), "discovery still reads");

            PlaneClaimRefusal livePeer = assertThrows(PlaneClaimRefusal.class, () -> AuthAuthorityPlane.open(
                    x.f.options(x.nats, stateDir.resolve("second")).serviceEndpoints(true).build()));
            assertEquals(PlaneClaimRefusal.Reason.LIVE_PEER, livePeer.reason(), livePeer.getMessage());
            String held = planeRow(x);
            assertTrue(held.contains("\"generation\":1") && held.contains("\"state\":\"held\"")
                    && held.contains(x.plane.claim().claimId()), "the refused open left the claim as it was: " + held);

            failClose.set(false);
            List<String> closedByTheRetry = new ArrayList<>(PLANE_CONNECTIONS);
            closedByTheRetry.add(EFFECT);
            try (SpaceConnections.Disconnects disconnects = new SpaceConnections.Disconnects(x.f, x.nats)) {
                x.plane.close();
                assertTrue(planeRow(x).contains("\"state\":\"released\""), "the retried close released the claim");
                assertEquals(Set.of(), disconnects.await(closedByTheRetry, Duration.ofSeconds(10)),
                        "the retry closed the effect connection and the plane's connections");
            }
            try (AuthAuthorityPlane second = AuthAuthorityPlane.open(x.f.options(x.nats, stateDir.resolve("second"))
                    .serviceEndpoints(true).build())) {
                assertEquals(2, second.claim().generation(), "the next plane takes the released claim");
            }
        }
    }
}
