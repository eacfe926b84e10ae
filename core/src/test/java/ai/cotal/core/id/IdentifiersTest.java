package ai.cotal.core.id;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class IdentifiersTest {
    private static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";
    private static final String UID = "abcdefghijklmnopqrstuvwxyz";

    /** One identifier type: how to make it from text, its field, texts it accepts and texts it refuses. */
    private record Case(String field, Function<String, Object> make, List<String> good, List<String> bad) {
    }

    private static final List<Case> CASES = List.of(
            new Case("owner", Owner::new, List.of(OWNER, "u_234567234567234567234567ab"),
                    List.of("alice", "u_ABCDEFGHIJKLMNOPQRSTUVWXYZ", "u_abcdefghijklmnopqrstuvwxy", "u_abcdefghijklmnopqrstuvwxyz1",
                            "u_abcdefghijklmnopqrstuvwxy0", "", " " + OWNER)),
            new Case("actor", Actor::new, List.of("laptop", "A_9", "x".repeat(64)),
                    List.of("", "lap.top", "lap top", "x".repeat(65), "*", ">")),
            new Case("lifecycleUid", LifecycleUid::new, List.of(UID, "0".repeat(32)),
                    List.of("a".repeat(25), "a".repeat(33), "ABCDEFGHIJKLMNOPQRSTUVWXYZ", UID + ".")),
            new Case("credentialId", CredentialId::new, List.of(UID, "234567abcdefghijklmnopqrst"),
                    List.of("0bcdefghijklmnopqrstuvwxyz", "a".repeat(27), "a".repeat(25))),
            new Case("instanceId", InstanceId::new, List.of(UID, "0".repeat(32)), List.of("a".repeat(25), "NOT-AN-ID")),
            new Case("runId", RunId::new, List.of(UID, "9".repeat(26)), List.of("a".repeat(33), "run-1")),
            new Case("space", SpaceName::new, List.of("alpha", "Beta space", "x".repeat(128)),
                    List.of("", "   ", "x".repeat(129), "a\u0000b", "a\nb")));

    @Test
    void eachTypeAcceptsItsRuleAndPrintsItsText() {
        for (Case c : CASES) {
            for (String text : c.good()) {
                Object value = c.make().apply(text);
                assertEquals(text, value.toString(), c.field());
                assertEquals(value, c.make().apply(text), c.field() + ": value equality");
                assertEquals(value.hashCode(), c.make().apply(text).hashCode(), c.field());
            }
            assertNotEquals(c.make().apply(c.good().get(0)), c.make().apply(c.good().get(1)), c.field());
        }
    }

    @Test
    void eachTypeRefusesTextOutsideItsRuleNamingTheFieldNotTheText() {
        for (Case c : CASES) {
            for (String text : c.bad()) {
                CotalException refused = assertThrows(CotalException.class, () -> c.make().apply(text), c.field() + " " + text);
                assertEquals(ErrorCode.BAD_REQUEST, refused.code());
                assertTrue(refused.getMessage().startsWith(c.field() + ": "), refused.getMessage());
                assertFalse(!text.isBlank() && refused.getMessage().contains(text), "the refusal repeats the text: " + refused);
            }
            CotalException missing = assertThrows(CotalException.class, () -> c.make().apply(null));
            assertTrue(missing.getMessage().startsWith(c.field() + ": "), missing.getMessage());
        }
    }

    @Test
    void ofNamesTheCallersField() {
        assertEquals("ref.owner: must be " + Owner.RULE,
                assertThrows(CotalException.class, () -> Owner.of("alice", "ref.owner")).getMessage());
        assertEquals("granter.actor: must be " + Actor.RULE,
                assertThrows(CotalException.class, () -> Actor.of("a.b", "granter.actor")).getMessage());
        assertTrue(assertThrows(CotalException.class, () -> SpaceName.of("", "sources.space")).getMessage()
                .startsWith("sources.space: "));
        assertEquals(new Owner(OWNER), Owner.of(OWNER, "x"));
        assertTrue(Owner.matches(OWNER));
        assertFalse(Owner.matches("alice"));
        assertFalse(Owner.matches(null));
    }

    @Test
    void aPrincipalIsAnOwnerDotAnActor() {
        Principal principal = Principal.of(OWNER, "laptop");
        assertEquals(OWNER + ".laptop", principal.toString());
        assertEquals(new Owner(OWNER), principal.owner());
        assertEquals(new Actor("laptop"), principal.actor());
        assertEquals(principal, Principal.parse(OWNER + ".laptop", "parent"));
        assertEquals(principal, new Principal(new Owner(OWNER), new Actor("laptop")));
        assertNotEquals(principal, Principal.of(OWNER, "phone"));
        assertTrue(Principal.matches(OWNER + ".laptop"));
        for (String bad : List.of("alice.laptop", OWNER, OWNER + ".", OWNER + ".lap.top", ".laptop")) {
            CotalException refused = assertThrows(CotalException.class, () -> Principal.parse(bad, "parent"), bad);
            assertEquals(ErrorCode.BAD_REQUEST, refused.code());
            assertTrue(refused.getMessage().startsWith("parent: "), refused.getMessage());
            assertFalse(Principal.matches(bad), bad);
        }
        assertTrue(assertThrows(CotalException.class, () -> Principal.of("alice", "laptop")).getMessage().startsWith("owner: "));
        assertTrue(assertThrows(CotalException.class, () -> Principal.of(OWNER, "a b")).getMessage().startsWith("actor: "));
        assertTrue(assertThrows(CotalException.class, () -> new Principal(new Owner(OWNER), null)).getMessage()
                .startsWith("actor: "));
    }

    @Test
    void aSpaceNameHasATokenAndASubjectPrefix() {
        SpaceName space = new SpaceName("Beta space");
        assertEquals("Beta_space", space.token());
        assertEquals("cotal.Beta_space", space.subjectPrefix());
        assertEquals("_", SpaceName.token("  "));
        assertEquals("a-b_c", SpaceName.token(" a-b.c "));
    }
}
