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

    /**
     * Writes {@code value} at {@code key} only when the key is absent, atomically: of two racing
     * creators exactly one wins, and an existing value is never replaced. Answers whether this call
     * created it. Provisioning uses it for keys that must never change once written (the owner
     * secret and the bearer issuer's keys, SPEC §3.6): a store that cannot create atomically keeps
     * this default, which refuses ({@code unimplemented}) rather than risk re-keying every owner.
     */
    default boolean create(String key, byte[] value) {
        throw new ai.cotal.core.CotalException(ai.cotal.core.ErrorCode.UNIMPLEMENTED, "this secret store cannot create "
                + SecretKey.check(key) + " atomically: implement SecretStore.create");
    }

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
