package ai.cotal.auth.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.cotal.core.ErrorCode;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.keys.NKeyPair;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The HTTP faces withhold a 4xx message by the same rule as the callout (RefusalText, SPEC §2). */
class RefusalsTest {
    @Test
    void aMessageWithAnyPathAnExceptionNameOrASeedIsWithheld() {
        for (String leaky : List.of("cannot read `/home/u/.cotal/x`", ".cotal/auth/space.6162/actors/x.json: unreadable",
                "row C:\\state\\x.json", "failed (FileSystemException)", "seed " + NKeyPair.create(KeyType.USER).seed(),
                "line\nbreak", "x".repeat(401))) {
            assertEquals("refused: permission-denied", Refusals.safe(leaky, ErrorCode.PERMISSION_DENIED), leaky);
        }
        String plain = "credential budget: this principal made 60 credentials in the last minute (limit 60 per principal"
                + " per minute); retry later";
        assertEquals(plain, Refusals.safe(plain, ErrorCode.RESOURCE_EXHAUSTED));
    }
}
