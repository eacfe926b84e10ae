package ai.cotal.auth.service;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one read of a host manifest both hosts use: exact bytes, the shared parser, no path in a refusal. */
class ManifestOnDiskTest {
    @TempDir
    Path dir;

    @Test
    void readsTheExactBytesAndParsesThem() throws Exception {
        Path file = dir.resolve("spaces.json");
        byte[] text = "{\"ver\":1,\"spaces\":[{\"space\":\"alpha\"}]}".getBytes(StandardCharsets.UTF_8);
        Files.write(file, text);
        AuthHostManifest.OnDisk onDisk = AuthHostManifest.read(file, "host");
        assertArrayEquals(text, onDisk.bytes());
        assertEquals("alpha", onDisk.manifest().spaces().get(0).space());
        assertEquals(dir.resolve("spaces.json.applied"), AuthHostManifest.appliedFile(file));
    }

    @Test
    void aMissingManifestNamesTheKindOfFailureNotThePath() {
        Path file = dir.resolve("secret-location").resolve("spaces.json");
        CotalException e = assertThrows(CotalException.class, () -> AuthHostManifest.read(file, "callout host"));
        assertEquals(ErrorCode.FAILED_PRECONDITION, e.code());
        assertEquals("cannot read the callout host manifest (NoSuchFileException)", e.getMessage());
        assertFalse(e.getMessage().contains("secret-location"));
    }
}
