package ai.cotal.core.internal.grants;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The authority roles' grant table (SPEC §13.12): the store ledger's line (SPEC §13.23). */
class AuthorityGrantsTest {
    private static final String LEDGER = "$KV.cotal_auth_alpha.ledger.>";

    @Test
    void onlyTheWriterPublishesTheStoreLedgersRows() {
        for (AuthorityGrants role : AuthorityGrants.values()) {
            List<String> pub = role.publish("alpha").allow();
            boolean holds = pub != null && pub.stream().anyMatch(s -> s.startsWith("$KV.cotal_auth_alpha.ledger"));
            assertEquals(role == AuthorityGrants.WRITER, holds, role + " and ledger.>");
        }
        assertEquals(1, AuthorityGrants.WRITER.publish("alpha").allow().stream().filter(LEDGER::equals).count(),
                "the writer's one ledger line");
        assertFalse(AuthorityGrants.WRITER.publish("alpha").allow().contains("$KV.cotal_auth_alpha.>"), "not the whole store");
    }
}
