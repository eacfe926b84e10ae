package ai.cotal.core.keys;

import ai.cotal.core.internal.keys.NKeyCodec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import io.nats.client.NKey;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class NKeyPairTest {
    @Test
    void encodingMatchesJnatsForEveryEd25519Type() throws Exception {
        NKey operator = NKey.createOperator(null);
        NKeyPair ours = NKeyPair.fromSeed(new String(operator.getSeed()), KeyType.OPERATOR, "seed");
        assertEquals(new String(operator.getPublicKey()), ours.publicKey());
        assertEquals(new String(operator.getSeed()), ours.seed());
        for (KeyType type : new KeyType[] {KeyType.ACCOUNT, KeyType.USER, KeyType.SERVER, KeyType.CLUSTER}) {
            NKeyPair pair = NKeyPair.create(type);
            assertEquals(type.letter(), pair.publicKey().charAt(0));
            assertEquals('S', pair.seed().charAt(0));
            assertEquals(type.letter(), pair.seed().charAt(1));
            NKey theirs = NKey.fromSeed(pair.seed().toCharArray());
            assertEquals(pair.publicKey(), new String(theirs.getPublicKey()));
        }
    }

    @Test
    void signaturesVerifyAcrossImplementations() throws Exception {
        NKeyPair user = NKeyPair.create(KeyType.USER);
        byte[] data = "nonce".getBytes(StandardCharsets.UTF_8);
        byte[] sig = user.sign(data);
        assertTrue(NKeyPair.verify(user.publicKey(), data, sig));
        assertTrue(NKey.fromPublicKey(user.publicKey().toCharArray()).verify(data, sig));
        sig[0] ^= 1;
        assertFalse(NKeyPair.verify(user.publicKey(), data, sig));
        assertFalse(NKeyPair.verify("not-a-key", data, user.sign(data)));
    }

    @Test
    void wrongTypesAndDamagedKeysAreRefusedNamingTheField() {
        String userSeed = NKeyPair.create(KeyType.USER).seed();
        CotalException e = assertThrows(CotalException.class, () -> NKeyPair.fromSeed(userSeed, KeyType.ACCOUNT, "accountSeed"));
        assertTrue(e.getMessage().startsWith("accountSeed:"), e.getMessage());
        assertFalse(e.getMessage().contains(userSeed));
        String pub = NKeyPair.create(KeyType.ACCOUNT).publicKey();
        char last = pub.charAt(pub.length() - 1);
        String damaged = pub.substring(0, pub.length() - 1) + (last == 'A' ? 'B' : 'A');
        assertThrows(CotalException.class, () -> NKeyCodec.decodePublic(damaged, KeyType.ACCOUNT, "account"));
        assertThrows(CotalException.class, () -> NKeyCodec.decodePublic(pub, KeyType.USER, "user"));
        assertTrue(NKeyCodec.isPublic(pub, KeyType.ACCOUNT));
        NKeyPair user = NKeyPair.create(KeyType.USER);
        // the public key is random base32 and may contain "SU" by chance: check the seed itself
        assertFalse(user.toString().contains(user.seed()));
        assertFalse(user.toString().contains(user.seed().substring(0, 12)));
    }
}
