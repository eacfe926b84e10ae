package ai.cotal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.micrometer.MicrometerSink;
import ai.cotal.core.creds.Creds;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.workspace.SecretKeys;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The plane's own meters (SPEC §13.21): standing connections' turnovers, and the state gauge through a fence and a close. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class PlaneMetricsBrokerTest {
    private final PlaneFixture f = new PlaneFixture();

    @TempDir
    Path stateDir;

    private static double state(SimpleMeterRegistry registry, String state) {
        return registry.get("cotal.auth.plane.state").tags("state", state).gauge().value();
    }

    @Test
    void turnoversAreCountedPerRoleAndTheStateGaugeFollowsAFenceAndAClose(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).standingTtl(Duration.ofSeconds(5))
                .meterSink(MicrometerSink.of(registry)).build());
        try {
            assertEquals(1, state(registry, "open"));
            // the broker drops each standing connection at its JWT's exp (5 s) and it reconnects: a turnover
            long deadline = System.currentTimeMillis() + 20_000;
            while (registry.find("cotal.auth.plane.turnovers").tags("role", "auth-mint").counter() == null
                    && System.currentTimeMillis() < deadline) {
                Thread.sleep(50); // polling the counter: the turnover has no event of its own outside the plane
            }
            assertTrue(registry.get("cotal.auth.plane.turnovers").tags("role", "auth-mint").counter().count() >= 1,
                    "the writer turned over at its exp");
            assertTrue(registry.find("cotal.auth.plane.turnovers").tags("role", "auth-scan").counters().isEmpty(),
                    "a scanner never reconnects, so it never turns over");

            ScannerKick.kick(nats, f.space.accountPublicKey(), ScannerKick.ledgerScanner("alpha"),
                    Creds.parse(f.store.getText(SecretKeys.membershipObserverCredsKey("alpha")).orElseThrow()), f.evictor);
            plane.fenced().get(10, TimeUnit.SECONDS);
            assertEquals(1, state(registry, "fenced"));
            assertEquals(0, state(registry, "open"));
        } finally {
            plane.close();
        }
        assertEquals(0, state(registry, "fenced"), "a closed plane leaves the gauge");
    }
}
