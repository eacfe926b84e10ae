package ai.cotal.auth.internal.plane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.Lifecycles;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The lifecycle records' closed forms and the operation ids (SPEC §14.1). */
class LifecycleRowsTest {
    private static final String O = "u_abcdefghijklmnopqrstuvwxyz";
    private static final String UID = "abcdefghijklmnopqrstuvwxyz";

    @Test
    void operationIdsAreTheFirst26HexOfTheirSha256() {
        // python3: hashlib.sha256(b"interactive-retire:" + uid).hexdigest()[:26]
        assertEquals("ec1a3263a82827d73f152e62cb", Lifecycles.interactiveRetirementOpId(UID));
        assertEquals("4f46a40e6e3904a825055954e4", Lifecycles.managedRetirementOpId(UID));
    }

    @Test
    void aHeadReadsOnlyInItsClosedForm() {
        String retiring = "{\"v\":1,\"owner\":\"" + O + "\",\"actor\":\"a\",\"kind\":\"interactive\",\"uid\":\"" + UID
                + "\",\"state\":\"retiring\",\"opId\":\"ec1a3263a82827d73f152e62cb\",\"at\":\"2026-11-30T00:00:00Z\"}";
        Lifecycles.Head head = LifecycleRows.parseHead(O, "a", bytes(retiring));
        assertEquals(Lifecycles.State.RETIRING, head.state());
        assertEquals(ActorRow.Kind.INTERACTIVE, head.kind());
        for (String bad : new String[] {
            retiring.replace("\"actor\":\"a\"", "\"actor\":\"b\""), // another alias than its key
            retiring.replace(",\"opId\":\"ec1a3263a82827d73f152e62cb\"", ""), // retiring without its op
            retiring.replace("\"retiring\"", "\"active\""), // active with an op
            retiring.replace("ec1a3263a82827d73f152e62cb", "4f46a40e6e3904a825055954e4"), // another kind's op
            retiring.replace("\"v\":1", "\"v\":2"),
            retiring.replace("}", ",\"extra\":1}"),
            retiring.replace("\"interactive\"", "\"robot\""),
            "not json"}) {
            CotalException e = assertThrows(CotalException.class, () -> LifecycleRows.parseHead(O, "a", bytes(bad)), bad);
            assertEquals(ErrorCode.DATA_LOSS, e.code(), bad);
            assertTrue(e.getMessage().contains("lifecycle.head." + O + ".a"), e.getMessage());
        }
    }

    @Test
    void anOperationReadsOnlyInItsClosedForm() {
        String opId = Lifecycles.managedRetirementOpId(UID);
        String pending = "{\"v\":1,\"opId\":\"" + opId + "\",\"kind\":\"managed-retirement\",\"owner\":\"" + O
                + "\",\"actor\":\"a\",\"uid\":\"" + UID + "\",\"state\":\"pending\",\"requestedAt\":\"2026-11-30T00:00:00Z\"}";
        LifecycleRows.Op op = LifecycleRows.parseOp(opId, bytes(pending));
        assertFalse(op.done());
        assertEquals(ActorRow.Kind.MANAGED, op.kind());
        assertTrue(LifecycleRows.parseOp(opId, bytes(pending.replace("\"pending\"", "\"done\"")
                .replace("}", ",\"doneAt\":\"2026-11-30T00:01:00Z\"}"))).done());
        for (String bad : new String[] {
            pending.replace("\"managed-retirement\"", "\"interactive-retirement\""), // the id is not this kind's
            pending.replace("\"pending\"", "\"done\""), // done without doneAt
            pending.replace("}", ",\"doneAt\":\"2026-11-30T00:01:00Z\"}"), // pending with doneAt
            pending.replace("\"owner\":\"" + O + "\"", "\"owner\":\"a.b\""),
            pending.replace("2026-11-30T00:00:00Z", "yesterday")}) {
            CotalException e = assertThrows(CotalException.class, () -> LifecycleRows.parseOp(opId, bytes(bad)), bad);
            assertEquals(ErrorCode.DATA_LOSS, e.code(), bad);
        }
        assertEquals(ErrorCode.DATA_LOSS, assertThrows(CotalException.class,
                () -> LifecycleRows.opIdOf("lifecycle.op.NOT-AN-ID")).code());
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
