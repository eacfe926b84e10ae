package ai.cotal.auth.internal.callout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The callout's one door for refusal text (#16.4): whatever a source says, the broker gets no path or internals. */
class CalloutRefusalTest {
    @Test
    void aPlainReasonPassesAndAnythingWithAPathExceptionTextOrASeedIsReplacedByItsKind() {
        String plain = "actor u_abcdefghijklmnopqrstuvwxyz.laptop is not (or no longer) granted";
        assertEquals(plain, CalloutRefusal.reason(new CotalException(ErrorCode.PERMISSION_DENIED, plain)));
        for (String leaky : new String[] {
                "actor a.b has an unreadable ledger row (/home/op/.cotal/auth/space.61/actors/a.b.json: cannot read)",
                "cannot read credential abc (java.nio.file.FileSystemException: Too many open files); retry shortly",
                "C:\\state\\actors: denied", "line one\nline two",
                "seed SUAIBDPBAUTWCWBKIO6XHQNINK5FWJW4OHLXC3HQ2KFE4PEJUA44CNHTBI leaked", "x".repeat(401)}) {
            String reason = CalloutRefusal.reason(new CotalException(ErrorCode.UNAVAILABLE, leaky));
            assertEquals("unavailable: the auth service could not check this connect now; retry shortly", reason, leaky);
        }
        assertTrue(CalloutRefusal.reason(new CotalException(ErrorCode.DATA_LOSS, "/x")).startsWith("data-loss: "));
        assertTrue(CalloutRefusal.reason(new IllegalStateException("/secret/path")).startsWith("internal: "));
    }

    @Test
    void theOperatorsAccountKeepsTheKindButNoPath() {
        String account = CalloutRefusal.withoutPaths(new CotalException(ErrorCode.UNAVAILABLE,
                "/home/op/.cotal/auth/space.61/actors/a.b.json: cannot read (FileSystemException)",
                new IOException("/home/op/.cotal: Too many open files")));
        assertFalse(account.contains("/home"), account);
        assertTrue(account.startsWith("<path>: cannot read"), account);
        assertTrue(account.endsWith(" <- IOException"), account);
    }
}
