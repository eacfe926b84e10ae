package ai.cotal.auth.internal.plane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.EndpointInstance;
import ai.cotal.auth.TestClock;
import ai.cotal.auth.internal.callout.EndpointAccess;
import ai.cotal.auth.internal.callout.LiveConnection;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The live-connection register (SPEC §13.16), without a broker: what a revoke takes from it, and
 * the mark that refuses a connect checked before the revoke.
 */
class LiveConnectionRegisterTest {
    private final AtomicLong now = new AtomicLong(1_700_000_000_000L);
    private final LiveConnectionRegister register = new LiveConnectionRegister(new TestClock(now::get));
    private final EndpointInstance weather = new EndpointInstance("weather", "0123456789abcdefghijklmnop");

    private LiveConnection connection(long cid, long expiresInSeconds) {
        return new LiveConnection("NSERVER", cid, "UUSER" + cid, now.get() / 1000 + expiresInSeconds);
    }

    private EndpointAccess grants(String... ids) {
        return EndpointAccess.callerGrants(java.util.Arrays.stream(ids)
                .map(id -> new EndpointAccess.Grant(id, weather, List.of("ask"))).toList());
    }

    private static Set<Long> cids(List<ConnectionEvictor.Target> taken) {
        return Set.copyOf(taken.stream().map(ConnectionEvictor.Target::clientId).toList());
    }

    @Test
    void aRevokeTakesEveryLiveConnectionUnderItsKeyOnce() {
        register.admit(connection(1, 60), EndpointAccess.serving(weather));
        register.admit(connection(2, 60), grants("g1", "g2"));
        register.admit(connection(3, 60), grants("g2"));
        register.admit(connection(4, -1), grants("g2")); // already expired: the broker closed it
        assertEquals(Set.of(2L, 3L), cids(register.revoke(EndpointAccess.grantKey("g2"))));
        assertEquals(Set.of(), cids(register.revoke(EndpointAccess.grantKey("g1"))),
                "a connection taken under one grant leaves every key");
        assertEquals(List.of(new ConnectionEvictor.Target("NSERVER", 1)), register.revoke(EndpointAccess.servingKey(weather)));
        assertEquals(0, register.size());
    }

    @Test
    void aConnectCheckedBeforeARevokeAndRecordedAfterItIsRefused() {
        register.revoke(EndpointAccess.servingKey(weather));
        CotalException late = assertThrows(CotalException.class,
                () -> register.admit(connection(1, 60), EndpointAccess.serving(weather)));
        assertEquals(ErrorCode.PERMISSION_DENIED, late.code());
        register.revoke(EndpointAccess.grantKey("g1"));
        assertThrows(CotalException.class, () -> register.admit(connection(2, 60), grants("g0", "g1")));
        register.admit(connection(3, 60), grants("g0"));
        now.addAndGet(LiveConnectionRegister.MARK.toMillis() + 1);
        register.admit(connection(4, 60), grants("g1")); // the mark outlived any check that began before it
        assertEquals(2, register.size());
    }

    @Test
    void aUserNameHoldsAKeyOnlyAmongItsEndpointKeys() {
        assertTrue(ConnectionSweep.holds("u_o-alice grant:g1 grant:g2", "grant:g2"));
        assertTrue(ConnectionSweep.holds("u_o-svc serves:weather.abc", "serves:weather.abc"));
        assertFalse(ConnectionSweep.holds("u_o-alice grant:g1", "grant:g"), "a key matches whole");
        assertFalse(ConnectionSweep.holds("grant:g1", "grant:g1"), "the first word is the principal");
        assertFalse(ConnectionSweep.holds("UABCDEF", "grant:g1"));
        assertEquals(List.of("grant:g1", "grant:g2"), grants("g1", "g2").keys());
        assertEquals(List.of("serves:weather." + weather.instanceId()), EndpointAccess.serving(weather).keys());
        assertEquals(List.of(), EndpointAccess.NONE.keys());
    }
}
