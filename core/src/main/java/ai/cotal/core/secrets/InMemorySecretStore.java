package ai.cotal.core.secrets;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link SecretStore} in this process's memory, for tests and for hosts that inject their own
 * persistence around it. Values are copied in and out. Thread-safe; its identity is
 * {@code injected} with a coordinate unique to the instance.
 */
public final class InMemorySecretStore implements SecretStore {
    private final Map<String, byte[]> values = new ConcurrentHashMap<>();
    private final SecretStoreIdentity identity = SecretStoreIdentity.injected("memory:" + UUID.randomUUID());

    /** An empty store. */
    public InMemorySecretStore() {
    }

    @Override
    public Optional<byte[]> get(String key) {
        byte[] value = values.get(SecretKey.check(key));
        return value == null ? Optional.empty() : Optional.of(value.clone());
    }

    @Override
    public void put(String key, byte[] value) {
        Objects.requireNonNull(value, "value");
        values.put(SecretKey.check(key), value.clone());
    }

    @Override
    public boolean create(String key, byte[] value) {
        Objects.requireNonNull(value, "value");
        return values.putIfAbsent(SecretKey.check(key), value.clone()) == null;
    }

    @Override
    public void delete(String key) {
        values.remove(SecretKey.check(key));
    }

    @Override
    public Optional<SecretStoreIdentity> identity() {
        return Optional.of(identity);
    }

    @Override
    public String toString() {
        return "InMemorySecretStore[" + values.size() + " keys]";
    }
}
