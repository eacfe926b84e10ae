package ai.cotal.auth.internal.callout;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.internal.callout.AuthCallout;
import ai.cotal.auth.InboxNonce;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.id.Principal;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** A person's client through the auth callout, end to end on the real broker. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class CalloutBrokerTest {
    private final CalloutFixture f = new CalloutFixture();

    @TempDir
    Path stateDir;

    @Test
    void aBearerConnectsWithExactlyItsLedgerPermissions(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = f.open(nats, stateDir); AuthCallout callout = f.responder(nats, plane)) {
            String bearer = f.bearer(plane, "laptop", List.of("general"), List.of("general"), Duration.ofMinutes(5));
            try (CalloutFixture.Client client = f.connect(nats, bearer, InboxNonce.forPrincipal(Principal.of(CalloutFixture.OWNER, "laptop")))) {
                assertEquals(Connection.Status.CONNECTED, client.connection().getStatus());
                client.connection().publish("cotal.alpha.chat." + CalloutFixture.OWNER + ".laptop.general",
                        "ok".getBytes(StandardCharsets.UTF_8));
                client.connection().flush(Duration.ofSeconds(5));
                client.connection().publish("cotal.alpha.chat." + CalloutFixture.OWNER + ".laptop.secret",
                        "no".getBytes(StandardCharsets.UTF_8));
                String violation = client.violation().get(5, TimeUnit.SECONDS);
                assertTrue(violation.contains("secret"), violation);
            }
        }
    }
}
