package ai.cotal.auth.internal.plane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.cotal.auth.TestClock;
import ai.cotal.auth.internal.callout.LiveConnection;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The lifecycle register (SPEC §13.16, §14.1), without a broker. */
class LifecycleConnectionsTest {
    private static final String O = "u_abcdefghijklmnopqrstuvwxyz";
    private static final String UID = "abcdefghijklmnopqrstuvwxyz";
    private final AtomicLong now = new AtomicLong(1_700_000_000_000L);

    private LiveConnection connection(long cid, long expiresInSeconds) {
        return new LiveConnection("NSERVER", cid, "UUSER" + cid, now.get() / 1000 + expiresInSeconds);
    }

    @Test
    void aMarkAnswersTheLifecyclesLiveConnectionsAndRefusesAConnectCheckedBeforeIt() {
        LifecycleConnections register = new LifecycleConnections(new TestClock(now::get));
        register.admit(connection(1, 60), O, "laptop", UID);
        register.admit(connection(2, 600), O, "laptop", "z" + UID); // another lifecycle of the alias
        register.admit(connection(3, -1), O, "laptop", UID); // expired: the broker closed it
        LifecycleConnections.Marked marked = register.mark(O, "laptop", UID);
        assertEquals(List.of(connection(1, 60)), marked.connections());
        assertEquals(0, marked.unknownUntil());
        CotalException late = assertThrows(CotalException.class, () -> register.admit(connection(4, 60), O, "laptop", UID));
        assertEquals(ErrorCode.PERMISSION_DENIED, late.code());
        assertEquals(List.of(connection(1, 60)), register.mark(O, "laptop", UID).connections(),
                "kept until the broker closed it");
        register.closed(marked.connections());
        assertEquals(List.of(), register.mark(O, "laptop", UID).connections());
        now.addAndGet(LifecycleConnections.MARK.toMillis() + 1);
        register.admit(connection(5, 60), O, "laptop", UID); // the mark outlived any check that began before it
        assertEquals(2, register.size());
    }

    @Test
    void aFullRegisterDropsTheEntryThatExpiresFirstAndItsLifecycleWaitsItOut() {
        LifecycleConnections register = new LifecycleConnections(new TestClock(now::get), 2);
        register.admit(connection(1, 30), O, "a", UID);
        register.admit(connection(2, 90), O, "b", UID);
        register.admit(connection(3, 60), O, "c", UID); // full: connection 1 (first to expire) is dropped, not this
        assertEquals(2, register.size());
        LifecycleConnections.Marked a = register.mark(O, "a", UID);
        assertEquals(List.of(), a.connections());
        assertEquals(now.get() / 1000 + 30, a.unknownUntil(), "a retirement of a waits until the dropped one expired");
        assertEquals(0, register.mark(O, "c", UID).unknownUntil());
        now.addAndGet(31_000);
        assertEquals(0, register.mark(O, "a", UID).unknownUntil(), "past its exp the broker closed it");
    }
}
