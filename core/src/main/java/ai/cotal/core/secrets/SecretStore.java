package ai.cotal.core.secrets;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The one seam for durable secrets (seeds, signing keys, standing credentials). Keys are relative
 * paths ({@link SecretKey#check}); values are whole documents: a reader sees either the old or
 * the new value, never a mix. The store does not encrypt: a KMS or vault is the host's to plug in
 * here.
 *
 * <p>Implementations are thread-safe. Errors are {@code CotalException}s; the message names the
 * key, never the value.
 */
public interface SecretStore {
    /** The value at {@code key}; empty only when the key is absent (any other failure throws). */
    Optional<byte[]> get(String key);

    /** Replaces the whole value at {@code key} atomically. */
    void put(String key, byte[] value);

    /** Removes {@code key}; removing an absent key succeeds (only absence is promised). */
    void delete(String key);

    /** Where this store keeps its values, when it can say: two handles on one store compare equal. */
    default Optional<SecretStoreIdentity> identity() {
        return Optional.empty();
    }

    /** {@link #get} as UTF-8 text. */
    default Optional<String> getText(String key) {
        return get(key).map(bytes -> new String(bytes, StandardCharsets.UTF_8));
    }

    /** {@link #put} of UTF-8 text. */
    default void putText(String key, String value) {
        put(key, value.getBytes(StandardCharsets.UTF_8));
    }
}
