package ai.cotal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.util.List;
import java.util.Map;
import ai.cotal.core.id.Principal;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The grant policy's closed JSON form and its matching (SPEC §13.18): each kind of condition, the
 * first matching rule that grants the actor, the rule's grant and label, and every malformed
 * policy refused {@code bad-request} naming the field.
 */
class GrantPolicyTest {
    private static final String RULES = "{\"rules\":["
            + "{\"name\":\"admins\",\"when\":{\"group\":\"/admins\"},\"actors\":[\"laptop\"],\"scope\":[\"admin\"]},"
            + "{\"name\":\"staff\",\"when\":{\"realmRole\":\"cotal-user\"},\"actors\":[\"laptop\",\"phone\"],"
            + "\"allowSubscribe\":[\"general\"],\"allowPublish\":[\"general\"]},"
            + "{\"name\":\"eng\",\"when\":{\"claim\":\"/org/department\",\"equals\":\"eng\"},\"actors\":[\"build\"]},"
            + "{\"name\":\"beta\",\"when\":{\"claim\":\"/features\",\"contains\":\"beta\"},\"actors\":[\"beta\"]}]}";

    private static Optional<String> match(Map<String, Object> claims, String actor) {
        return GrantPolicy.parse(RULES, "grantPolicy").match(claims, actor).map(GrantPolicy.Rule::name);
    }

    @Test
    void eachConditionMatchesItsClaimAndTheFirstRuleGrantingTheActorWins() {
        Map<String, Object> both = Map.of("groups", List.of("/admins"), "realm_access", Map.of("roles", List.of("cotal-user")));
        assertEquals(Optional.of("admins"), match(both, "laptop"), "the first rule, in order");
        assertEquals(Optional.of("staff"), match(both, "phone"), "the first rule that grants the actor");
        assertEquals(Optional.empty(), match(both, "desktop"), "no rule grants that actor");
        assertEquals(Optional.of("eng"), match(Map.of("org", Map.of("department", "eng")), "build"));
        assertEquals(Optional.empty(), match(Map.of("org", Map.of("department", List.of("eng"))), "build"),
                "equals needs the string itself");
        assertEquals(Optional.of("beta"), match(Map.of("features", List.of("alpha", "beta")), "beta"));
        assertEquals(Optional.empty(), match(Map.of("features", "beta"), "beta"), "contains needs an array");
        assertEquals(Optional.empty(), match(Map.of("realm_access", Map.of("roles", List.of("cotal-users"))), "laptop"));

        GrantPolicy.Rule staff = GrantPolicy.parse(RULES, "grantPolicy").rules().get(1);
        Grant grant = staff.grant();
        assertEquals(Optional.of("policy:staff"), grant.label());
        assertEquals(List.of("general"), grant.allowPublish());
        assertEquals(List.of(), grant.scope());
        assertTrue(grant.role().isEmpty() && grant.parent().isEmpty());
    }

    @Test
    void aMalformedPolicyIsRefusedNamingTheField() {
        Map<String, String> refusals = Map.ofEntries(
                Map.entry("{}", "grantPolicy.rules:"),
                Map.entry("{\"rules\":[],\"x\":1}", "grantPolicy"),
                Map.entry("{\"rules\":[]}", "grantPolicy.rules:"),
                Map.entry("{\"rules\":[{\"name\":\"Bad Name\",\"when\":{\"group\":\"g\"},\"actors\":[\"a\"]}]}",
                        "grantPolicy.rules[0].name:"),
                Map.entry("{\"rules\":[{\"name\":\"r\",\"actors\":[\"a\"]}]}", "grantPolicy.rules[0].when:"),
                Map.entry("{\"rules\":[{\"name\":\"r\",\"when\":{\"group\":\"g\",\"realmRole\":\"x\"},\"actors\":[\"a\"]}]}",
                        "grantPolicy.rules[0].when:"),
                Map.entry("{\"rules\":[{\"name\":\"r\",\"when\":{\"claim\":\"dept\",\"equals\":\"x\"},\"actors\":[\"a\"]}]}",
                        "grantPolicy.rules[0].when.claim:"),
                Map.entry("{\"rules\":[{\"name\":\"r\",\"when\":{\"claim\":\"/d\"},\"actors\":[\"a\"]}]}",
                        "grantPolicy.rules[0].when.claim:"),
                Map.entry("{\"rules\":[{\"name\":\"r\",\"when\":{\"group\":\"g\",\"equals\":\"x\"},\"actors\":[\"a\"]}]}",
                        "grantPolicy.rules[0].when.equals:"),
                Map.entry("{\"rules\":[{\"name\":\"r\",\"when\":{\"group\":\"g\"},\"actors\":[]}]}",
                        "grantPolicy.rules[0].actors:"),
                Map.entry("{\"rules\":[{\"name\":\"r\",\"when\":{\"group\":\"g\"},\"actors\":[\"a.b\"]}]}",
                        "grantPolicy.rules[0].actors[0]:"),
                Map.entry("{\"rules\":[{\"name\":\"r\",\"when\":{\"group\":\"g\"},\"actors\":[\"a\"],\"allowPublish\":[\"x.>\"]}]}",
                        "grantPolicy.rules[0].allowPublish[0]:"),
                Map.entry("{\"rules\":[{\"name\":\"r\",\"when\":{\"group\":\"g\"},\"actors\":[\"a\"],\"label\":\"x\"}]}",
                        "grantPolicy.rules[0]"),
                Map.entry("{\"rules\":[{\"name\":\"r\",\"when\":{\"group\":\"g\"},\"actors\":[\"a\"]},"
                        + "{\"name\":\"r\",\"when\":{\"group\":\"h\"},\"actors\":[\"a\"]}]}", "grantPolicy.rules[1].name:"));
        refusals.forEach((json, field) -> {
            CotalException refused = assertThrows(CotalException.class, () -> GrantPolicy.parse(json, "grantPolicy"), json);
            assertEquals(ErrorCode.BAD_REQUEST, refused.code(), json);
            assertTrue(refused.getMessage().startsWith(field), json + " -> " + refused.getMessage());
        });
    }

    @Test
    void onlyAnInteractiveRowLabelledByThePolicyIsAPolicyRow() {
        Principal principal = Principal.of("u_abcdefghijklmnopqrstuvwxyz", "laptop");
        ActorRow policy = new ActorRow(ActorRow.Kind.INTERACTIVE, principal, List.of(), List.of(), List.of(), Optional.empty(),
                Optional.empty(), Optional.of("policy:staff"), Optional.empty(), ActorTokens.newLifecycleUid(), "2026-01-01T00:00:00Z");
        assertTrue(GrantPolicy.isPolicyRow(policy));
        ActorRow hand = new ActorRow(ActorRow.Kind.INTERACTIVE, principal, List.of(), List.of(), List.of(), Optional.empty(),
                Optional.empty(), Optional.of("laptop of alice"), Optional.empty(), ActorTokens.newLifecycleUid(),
                "2026-01-01T00:00:00Z");
        assertFalse(GrantPolicy.isPolicyRow(hand));
    }
}
