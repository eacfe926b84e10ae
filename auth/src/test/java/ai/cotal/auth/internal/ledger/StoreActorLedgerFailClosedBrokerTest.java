package ai.cotal.auth.internal.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ActorTokens;
import ai.cotal.auth.ConnectAttempt;
import ai.cotal.auth.Grant;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Rows the store ledger cannot trust, planted with raw KV writes: each is {@code data-loss} at
 * {@code find}, refused "unreadable ledger row" at connect, refused by a grant (nothing written)
 * and removed by a revoke (SPEC §13.23). No message names a key.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class StoreActorLedgerFailClosedBrokerTest {
    private static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";
    private static final String UID = "abcdefghijklmnopqrstuvwxyz234567";
    private static final String HASH = "0".repeat(64);

    /** A valid interactive row of {@code laptop} with one field replaced or removed (null). */
    private static String row(String field, String json) {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("ver", "1");
        fields.put("kind", "\"interactive\"");
        fields.put("owner", "\"" + OWNER + "\"");
        fields.put("actor", "\"laptop\"");
        fields.put("scope", "[\"chat\"]");
        fields.put("allowSubscribe", "[]");
        fields.put("allowPublish", "[]");
        fields.put("lifecycleUid", "\"" + UID + "\"");
        fields.put("grantedAt", "\"2026-01-01T00:00:00Z\"");
        if (field != null) {
            if (json == null) {
                fields.remove(field);
            } else {
                fields.put(field, json);
            }
        }
        StringBuilder out = new StringBuilder("{");
        fields.forEach((k, v) -> out.append(out.length() > 1 ? "," : "").append('"').append(k).append("\":").append(v));
        return out.append('}').toString();
    }

    private static Map<String, String> corrupt() {
        Map<String, String> rows = new LinkedHashMap<>();
        rows.put("ver 2", row("ver", "2"));
        rows.put("no ver", row("ver", null));
        rows.put("no kind", row("kind", null));
        rows.put("an unknown kind", row("kind", "\"robot\""));
        rows.put("a kind that is no text", row("kind", "1"));
        rows.put("an unknown field", row("extra", "true"));
        rows.put("another owner", row("owner", "\"u_ownerownerownerownerowners\""));
        rows.put("another actor", row("actor", "\"phone\""));
        rows.put("a token hash on an interactive row", row("tokenHash", "\"" + HASH + "\""));
        rows.put("a managed row without its token hash", row("kind", "\"managed\""));
        rows.put("a wildcard scope", row("scope", "[\"chat.*\"]"));
        rows.put("a missing list", row("allowPublish", null));
        rows.put("a bad uid", row("lifecycleUid", "\"short\""));
        rows.put("no JSON", "not json");
        rows.put("64 KiB + 1", row("label", "\"" + "x".repeat(StoreActorLedger.MAX_ROW_BYTES) + "\""));
        return rows;
    }

    @Test
    void aPlantedRowThatBreaksARuleIsDataLossRefusedAtConnectRefusedByAGrantAndRemovedByARevoke(NatsBrokers brokers)
            throws Exception {
        try (StoreLedgerBroker store = new StoreLedgerBroker(brokers)) {
            StoreActorLedger ledger = store.ledger();
            Principal laptop = Principal.of(OWNER, "laptop");
            String key = "ledger." + laptop;
            assertEquals(ActorTokens.tokenHash("x").length(), HASH.length());
            for (Map.Entry<String, String> planted : corrupt().entrySet()) {
                String why = planted.getKey();
                store.kv.put(key, planted.getValue().getBytes(StandardCharsets.UTF_8));
                assertRefusedEverywhere(store, ledger, laptop, why);
            }
            // a purge marker is no delete: corrupt too
            store.kv.put(key, row(null, null).getBytes(StandardCharsets.UTF_8));
            assertTrue(ledger.find(laptop).isPresent(), "the unbroken row reads");
            store.kv.purge(key);
            assertEquals("PURGE", store.operation(key));
            assertRefusedEverywhere(store, ledger, laptop, "a purge marker");
        }
    }

    private static void assertRefusedEverywhere(StoreLedgerBroker store, StoreActorLedger ledger, Principal laptop,
            String why) throws Exception {
        String key = "ledger." + laptop;
        CotalException found = assertThrows(CotalException.class, () -> ledger.find(laptop), why);
        assertEquals(ErrorCode.DATA_LOSS, found.code(), why + ": " + found.getMessage());
        String named = List.of("no kind", "an unknown kind", "a kind that is no text", "no JSON", "64 KiB + 1",
                "a purge marker").contains(why) ? "the ledger row of " // no kind reads
                : why.startsWith("a managed") ? "the managed ledger row of " : "the interactive ledger row of ";
        assertTrue(found.getMessage().startsWith(named + laptop + " is corrupt ("), why + ": " + found.getMessage());
        if (why.equals("64 KiB + 1")) {
            assertTrue(found.getMessage().contains("larger than 65536 bytes"), found.getMessage());
        }
        assertFalse(found.getMessage().contains("ledger." + OWNER) || found.getMessage().contains("$KV"),
                why + ": no key in " + found.getMessage());

        ConnectAttempt connect = new ConnectAttempt(laptop, List.of(), new LifecycleUid(UID),
                new CredentialId("abcdefghijklmnopqrstuvwxyz"));
        CotalException denied = assertThrows(CotalException.class, () -> ledger.authorizeConnect(connect,
                ledger.send(laptop)), why);
        assertEquals(ErrorCode.PERMISSION_DENIED, denied.code(), why);
        assertEquals("actor " + laptop + " has an unreadable ledger row: " + found.getMessage(), denied.getMessage(), why);
        assertFalse(ledger.actorSourceIsLive(laptop, new LifecycleUid(UID)), why);
        assertEquals(List.of(), ledger.interactiveRows(laptop.owner()), why);

        long before = store.lastSequence();
        CotalException grant = assertThrows(CotalException.class,
                () -> ledger.grantActor(laptop, Grant.of(List.of("chat"), List.of(), List.of())), why);
        assertEquals(ErrorCode.DATA_LOSS, grant.code(), why);
        assertTrue(grant.getMessage().contains("a grant does not overwrite it"), grant.getMessage());
        assertEquals(before, store.lastSequence(), why + ": a grant never overwrites what it cannot read");

        ledger.revoke(laptop);
        assertEquals("DEL", store.operation(key), why + ": a revoke removes it");
        assertNull(store.kv.get(key));
        assertTrue(ledger.find(laptop).isEmpty(), why);
    }
}
