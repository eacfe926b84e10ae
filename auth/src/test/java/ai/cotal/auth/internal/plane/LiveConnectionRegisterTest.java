package ai.cotal.auth.internal.plane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.cotal.auth.EndpointInstance;
import ai.cotal.auth.TestClock;
import ai.cotal.auth.callout.EndpointAccess;
import ai.cotal.auth.callout.LiveConnection;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.servicehost.HostResult.LiveConnections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The live-connection register (SPEC §13.16), without a broker: its store holds no evictor
 * credential, so every kick it asks for is counted {@code open}, which is what these tests read.
 */
class LiveConnectionRegisterTest {
    private final AtomicLong now = new AtomicLong(1_700_000_000_000L);
    private final LiveConnectionRegister register = new LiveConnectionRegister(new TestClock(now::get),
            new ConnectionEvictor(List.of("nats://127.0.0.1:1"), "alpha", new InMemorySecretStore(), null));
    private final EndpointInstance weather = new EndpointInstance("weather", "0123456789abcdefghijklmnop");

    private LiveConnection connection(long cid, long expiresInSeconds) {
        return new LiveConnection("NSERVER", cid, "UUSER" + cid, now.get() / 1000 + expiresInSeconds);
    }

    private EndpointAccess grants(String... ids) {
        return EndpointAccess.callerGrants(java.util.Arrays.stream(ids)
                .map(id -> new EndpointAccess.Grant(id, weather, List.of("ask"))).toList());
    }

    @Test
    void aRevokeTakesEveryLiveConnectionUnderItsKeyOnce() {
        register.admit(connection(1, 60), EndpointAccess.serving(weather));
        register.admit(connection(2, 60), grants("g1", "g2"));
        register.admit(connection(3, 60), grants("g2"));
        register.admit(connection(4, -1), grants("g2")); // already expired: the broker closed it
        assertEquals(new LiveConnections(0, 2), register.revoke(LiveConnectionRegister.grant("g2")));
        assertEquals(new LiveConnections(0, 0), register.revoke(LiveConnectionRegister.grant("g1")),
                "a connection taken under one grant leaves every key");
        assertEquals(new LiveConnections(0, 1), register.revoke(LiveConnectionRegister.serving("weather",
                weather.instanceId())));
        assertEquals(0, register.size());
    }

    @Test
    void aConnectCheckedBeforeARevokeAndRecordedAfterItIsRefused() {
        register.revoke(LiveConnectionRegister.serving("weather", weather.instanceId()));
        CotalException late = assertThrows(CotalException.class,
                () -> register.admit(connection(1, 60), EndpointAccess.serving(weather)));
        assertEquals(ErrorCode.PERMISSION_DENIED, late.code());
        register.revoke(LiveConnectionRegister.grant("g1"));
        assertThrows(CotalException.class, () -> register.admit(connection(2, 60), grants("g0", "g1")));
        register.admit(connection(3, 60), grants("g0"));
        now.addAndGet(LiveConnectionRegister.MARK.toMillis() + 1);
        register.admit(connection(4, 60), grants("g1")); // the mark outlived any check that began before it
        assertEquals(2, register.size());
    }
}
