package ai.cotal.core.internal.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ClosedJsonTest {
    record Doc(int ver, String name) {
    }

    private static CotalException refused(String json) {
        CotalException e = assertThrows(CotalException.class, () -> ClosedJson.read(ClosedJson.cotal(),
                json.getBytes(StandardCharsets.UTF_8), Doc.class, "doc"));
        assertEquals(ErrorCode.BAD_REQUEST, e.code());
        return e;
    }

    @Test
    void aRefusalNamesAPlainFieldButNeverQuotesAHostileName() {
        assertEquals(new Doc(1, "a"), ClosedJson.read(ClosedJson.cotal(), "{\"ver\":1,\"name\":\"a\"}"
                .getBytes(StandardCharsets.UTF_8), Doc.class, "doc"));
        assertTrue(refused("{\"ver\":1,\"extra\":2}").getMessage().contains("doc.extra"), "a plain name is shown");
        String secret = "SUAIBDPBAUTWCWBKIO6XHQNINK5FWJW4OHLXC3HQ2KFE4PEJUA44CNHTBI";
        CotalException hidden = refused("{\"ver\":1,\"" + secret + "\\nFAKE LOG LINE\":2}");
        assertFalse(hidden.getMessage().contains(secret), hidden.getMessage());
        assertFalse(hidden.getMessage().contains("FAKE"), hidden.getMessage());
        assertTrue(hidden.getMessage().contains("doc.<name not shown>"), hidden.getMessage());
        assertEquals("<name not shown>", ClosedJson.fieldName("x".repeat(65)));
        assertEquals("kid", ClosedJson.fieldName("kid"));
    }

    @Test
    void aNameShapedLikeASeedAKeyOrACapabilityIsNotShownEvenAlone() {
        String seed = "SUAIBDPBAUTWCWBKIO6XHQNINK5FWJW4OHLXC3HQ2KFE4PEJUA44CNHTBI"; // 58 characters, 1 to 64 of the set
        CotalException e = refused("{\"ver\":1,\"" + seed + "\":2}");
        assertFalse(e.getMessage().contains(seed), e.getMessage());
        assertTrue(e.getMessage().contains("doc.<name not shown>"), e.getMessage());
        for (String secretShaped : new String[] {seed,
                "UAYIEI5SXGBQLUGSNE3VVWN2VHVRAKEJCTGM7FZCYPC6MEOJTBHCSW3M", // a public nkey
                "Qm9ndXNDYXBhYmlsaXR5VG9rZW5fLTAxMjM0NTY3ODk", // a base64url capability
                "0123456789abcdef0123456789abcdef", // 32 hex
                "abcdefghijklmnopqrstuvwxyz234567"}) { // 32 base32
            assertEquals("<name not shown>", ClosedJson.fieldName(secretShaped), secretShaped);
        }
        for (String plain : new String[] {"kid", "allowSubscribe", "x".repeat(31), "$schema", "a$" + "b".repeat(40)}) {
            assertEquals(plain, ClosedJson.fieldName(plain), plain);
        }
    }
}
