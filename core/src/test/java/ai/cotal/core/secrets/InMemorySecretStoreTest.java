package ai.cotal.core.secrets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class InMemorySecretStoreTest {
    @Test
    void putGetDeleteWithCopies() {
        InMemorySecretStore store = new InMemorySecretStore();
        byte[] value = {1, 2, 3};
        store.put("space.616c706861/delivery.creds", value);
        value[0] = 9;
        assertArrayEquals(new byte[] {1, 2, 3}, store.get("space.616c706861/delivery.creds").orElseThrow());
        store.delete("space.616c706861/delivery.creds");
        store.delete("space.616c706861/delivery.creds");
        assertEquals(Optional.empty(), store.get("space.616c706861/delivery.creds"));
        store.putText("broker.json", "{}");
        assertEquals("{}", store.getText("broker.json").orElseThrow());
    }

    @Test
    void keysThatCouldEscapeAreRefused() {
        InMemorySecretStore store = new InMemorySecretStore();
        for (String key : new String[] {"", "/abs", "../x", "a/../b", "a//b", "a/", ".", "a\u0000b", "a b", "a\\b"}) {
            assertThrows(CotalException.class, () -> store.put(key, new byte[0]), key);
        }
    }

    @Test
    void identitiesCompare() {
        InMemorySecretStore a = new InMemorySecretStore();
        InMemorySecretStore b = new InMemorySecretStore();
        assertTrue(SecretStoreIdentity.sameIdentity(a, a));
        assertFalse(SecretStoreIdentity.sameIdentity(a, b));
        assertEquals(SecretStoreIdentity.fs("/r"), SecretStoreIdentity.fs("/r"));
        assertThrows(CotalException.class, () -> SecretStoreIdentity.injected(" "));
    }
}
