package ai.cotal.workspace;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** A second process for {@link FileSecretStoreTest}: writes one key many times. */
public final class ConcurrentWriter {
    private ConcurrentWriter() {
    }

    static byte[] value(char c) {
        return String.valueOf(c).repeat(64 * 1024).getBytes(StandardCharsets.UTF_8);
    }

    public static void main(String[] args) {
        FileSecretStore store = new FileSecretStore(Path.of(args[0]));
        byte[] value = value(args[1].charAt(0));
        for (int i = 0; i < Integer.parseInt(args[2]); i++) {
            store.put("race/key", value);
        }
    }
}
