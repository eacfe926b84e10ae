package ai.cotal.core.keys;

import ai.cotal.core.internal.keys.NKeyCodec;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** Known-answer tests against NaCl's crypto_box vectors (libsodium test/default/box.c, box2.c). */
class XKeyPairTest {
    private static final HexFormat HEX = HexFormat.of();
    private static final byte[] ALICE_SK = HEX.parseHex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
    private static final byte[] ALICE_PK = HEX.parseHex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
    private static final byte[] BOB_SK = HEX.parseHex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
    private static final byte[] BOB_PK = HEX.parseHex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
    private static final byte[] NONCE = HEX.parseHex("69696ee955b62b73cd62bda875fc73d68219e0036b7a0b37");
    private static final byte[] MESSAGE = HEX.parseHex(
            "be075fc53c81f2d5cf141316ebeb0c7b5228c52a4c62cbd44b66849b64244ffce5ecbaaf33bd751a1ac728d45e6c61296cdc3c"
            + "01233561f41db66cce314adb310e3be8250c46f06dceea3a7fa1348057e2f6556ad6b1318a024a838f21af1fde048977eb48f59f"
            + "fd4924ca1c60902e52f0a089bc76897040e082f937763848645e0705");
    private static final byte[] CIPHERTEXT = HEX.parseHex(
            "f3ffc7703f9400e52a7dfb4b3d3305d98e993b9f48681273c29650ba32fc76ce48332ea7164d96a4476fb8c531a1186ac0dfc17c"
            + "98dce87b4da7f011ec48c97271d2c20f9b928fe2270d6fb863d51738b48eeee314a7cc8ab932164548e526ae90224368517acfea"
            + "bd6bb3732bc0e9da99832b61ca01b6de56244a9e88d5f9b37973f622a43d14a6599b1f654cb45a74e355a5");
    private static final byte[] SHARED = HEX.parseHex("1b27556473e985d462cd51197a9a46c76009549eac6474f206c4ee0844f68389");

    @Test
    void derivesTheNaclPublicKeysAndSharedKey() {
        XKeyPair alice = XKeyPair.fromRaw(ALICE_SK);
        XKeyPair bob = XKeyPair.fromRaw(BOB_SK);
        assertEquals(NKeyCodec.encodePublic(KeyType.CURVE, ALICE_PK), alice.publicKey());
        assertEquals(NKeyCodec.encodePublic(KeyType.CURVE, BOB_PK), bob.publicKey());
        assertArrayEquals(SHARED, alice.sharedKey(BOB_PK));
        assertArrayEquals(SHARED, bob.sharedKey(ALICE_PK));
    }

    @Test
    void boxMatchesTheNaclCiphertextAndOpens() {
        assertArrayEquals(CIPHERTEXT, XKeyPair.fromRaw(ALICE_SK).box(MESSAGE, NONCE, BOB_PK));
        assertArrayEquals(MESSAGE, XKeyPair.fromRaw(BOB_SK).unbox(CIPHERTEXT, NONCE, ALICE_PK));
    }

    @Test
    void xkv1RoundTripsBetweenTwoKeys() {
        XKeyPair server = XKeyPair.create();
        XKeyPair callout = XKeyPair.create();
        byte[] sealed = server.seal("request".getBytes(StandardCharsets.UTF_8), callout.publicKey());
        assertEquals("xkv1", new String(sealed, 0, 4, StandardCharsets.US_ASCII));
        assertEquals(4 + 24 + 16 + 7, sealed.length);
        assertArrayEquals("request".getBytes(StandardCharsets.UTF_8), callout.open(sealed, server.publicKey()));
    }

    @Test
    void tamperedOrMisaddressedMessagesDoNotOpen() {
        XKeyPair server = XKeyPair.create();
        XKeyPair callout = XKeyPair.create();
        byte[] sealed = server.seal("request".getBytes(StandardCharsets.UTF_8), callout.publicKey());
        byte[] flipped = sealed.clone();
        flipped[flipped.length - 1] ^= 1;
        CotalException e = assertThrows(CotalException.class, () -> callout.open(flipped, server.publicKey()));
        assertEquals(ErrorCode.UNAUTHENTICATED, e.code());
        assertThrows(CotalException.class, () -> XKeyPair.create().open(sealed, server.publicKey()));
        byte[] wrongVersion = sealed.clone();
        wrongVersion[3] = '2';
        assertThrows(CotalException.class, () -> callout.open(wrongVersion, server.publicKey()));
    }

    @Test
    void seedRoundTripsAndIsHiddenFromToString() {
        XKeyPair key = XKeyPair.create();
        String seed = key.seed();
        assertTrue(seed.startsWith("SX"), seed.substring(0, 2));
        assertTrue(key.publicKey().startsWith("X"));
        assertEquals(key.publicKey(), XKeyPair.fromSeed(seed, "seed").publicKey());
        assertFalse(key.toString().contains(seed));
        CotalException e = assertThrows(CotalException.class, () -> XKeyPair.fromSeed(NKeyPair.create(KeyType.USER).seed(), "xkeySeed"));
        assertTrue(e.getMessage().startsWith("xkeySeed:"), e.getMessage());
    }
}
