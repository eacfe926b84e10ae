package ai.cotal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** {@link LedgerStore}: its two words, the CLI's parse, and the option's default and refusal. */
class LedgerStoreTest {
    @Test
    void theTwoPlacementsAreNamedAndParsedAndAnythingElseIsABadRequestNamingLedger() {
        assertEquals("files", LedgerStore.files().name());
        assertEquals("store", LedgerStore.jetStream().name());
        assertSame(LedgerStore.files(), LedgerStore.parse("files"));
        assertSame(LedgerStore.jetStream(), LedgerStore.parse("store"));
        for (String bad : Arrays.asList(null, "", "jetstream", "Files", "store ")) {
            CotalException e = assertThrows(CotalException.class, () -> LedgerStore.parse(bad));
            assertEquals(ErrorCode.BAD_REQUEST, e.code());
            assertEquals("ledger: must be files or store", e.getMessage(), String.valueOf(bad));
        }
    }

    @Test
    void thePlanesOptionIsFilesUnlessGivenAndNullIsRefused() {
        PlaneFixture f = new PlaneFixture();
        AuthPlaneOptions.Builder options = AuthPlaneOptions.builder().server("nats://127.0.0.1:4222").space("alpha")
                .stateDir(java.nio.file.Path.of("/tmp/unused-state")).secretStore(f.store)
                .signer(new ai.cotal.core.trust.SpaceAuth(f.broker, f.space).strip());
        assertSame(LedgerStore.files(), options.build().ledger());
        assertSame(LedgerStore.jetStream(), options.ledger(LedgerStore.jetStream()).build().ledger());
        CotalException e = assertThrows(CotalException.class, () -> options.ledger(null).build());
        assertEquals(ErrorCode.BAD_REQUEST, e.code());
        assertEquals("ledger: is required (LedgerStore.files() by default)", e.getMessage());
    }
}
