package ai.cotal.auth.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import org.junit.jupiter.api.Test;

/**
 * A manifest entry's {@code grantPolicy} (SPEC §13.19, §13.18): parsed with the lane's other
 * settings, refused naming {@code spaces[i].grantPolicy.<field>}, and part of the entry, so an
 * unchanged policy leaves the lane as it is and a changed one is a changed entry.
 */
class ManifestGrantPolicyTest {
    private static String manifest(String policy) {
        return "{\"ver\":1,\"spaces\":[{\"space\":\"alpha\"},{\"space\":\"beta\",\"grantPolicy\":" + policy + "}]}";
    }

    private static final String STAFF = "{\"rules\":[{\"name\":\"staff\",\"when\":{\"realmRole\":\"cotal-user\"},"
            + "\"actors\":[\"laptop\"],\"allowPublish\":[\"general\"]}]}";

    @Test
    void anEntrysPolicyIsParsedAndPartOfTheEntry() {
        AuthHostManifest parsed = AuthHostManifest.parse(manifest(STAFF));
        assertNull(parsed.spaces().get(0).grantPolicy(), "no policy unless given");
        assertEquals("staff", parsed.spaces().get(1).grantPolicy().rules().get(0).name());
        assertEquals(parsed.spaces().get(1), AuthHostManifest.parse(manifest(STAFF)).spaces().get(1),
                "the same policy: the same entry, the lane is left running");
        assertNotEquals(parsed.spaces().get(1), AuthHostManifest.parse(manifest(STAFF.replace("general", "announce")))
                .spaces().get(1), "a changed policy is a changed entry");
    }

    @Test
    void aBadPolicyRefusesTheManifestNamingTheField() {
        for (String[] bad : new String[][] {
            {"[]", "spaces[1].grantPolicy:"},
            {"{\"rules\":[{\"name\":\"staff\",\"when\":{},\"actors\":[\"laptop\"]}]}", "spaces[1].grantPolicy.rules[0].when:"},
            {"{\"rules\":[{\"name\":\"staff\",\"when\":{\"group\":\"g\"},\"actors\":[\"laptop\"],\"bogus\":1}]}",
                "spaces[1].grantPolicy.rules[0]"}}) {
            CotalException refused = assertThrows(CotalException.class, () -> AuthHostManifest.parse(manifest(bad[0])));
            assertEquals(ErrorCode.BAD_REQUEST, refused.code());
            assertTrue(refused.getMessage().startsWith(bad[1]), bad[0] + " -> " + refused.getMessage());
        }
    }
}
