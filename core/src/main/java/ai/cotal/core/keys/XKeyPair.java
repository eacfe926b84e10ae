package ai.cotal.core.keys;

import ai.cotal.core.internal.keys.NKeyCodec;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import org.bouncycastle.crypto.engines.Salsa20Engine;
import org.bouncycastle.crypto.engines.XSalsa20Engine;
import org.bouncycastle.crypto.macs.Poly1305;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.params.ParametersWithIV;
import org.bouncycastle.math.ec.rfc7748.X25519;

/**
 * A curve (X25519) nkey, public prefix {@code X}, seed prefix {@code SX}: the key nats-server
 * uses to seal auth-callout requests and responses. Sealing is the {@code xkv1} format:
 * {@code "xkv1" || nonce(24) || crypto_box(message)}, where crypto_box is NaCl's
 * X25519 + HSalsa20 + XSalsa20-Poly1305 (16-byte tag first).
 *
 * <p>Immutable and thread-safe. {@link #toString()} never shows the seed.
 */
public final class XKeyPair {
    private static final byte[] VERSION = "xkv1".getBytes(StandardCharsets.US_ASCII);
    private static final int NONCE = 24;
    private static final int TAG = 16;
    private static final SecureRandom RANDOM = new SecureRandom();

    private static final int SHARED_CACHE = 1024;

    private final byte[] privateKey;
    private final String publicKey;
    /** Box keys per peer: a server keeps its curve key, so each request would otherwise redo X25519 twice. */
    private final java.util.Map<String, byte[]> shared = new java.util.concurrent.ConcurrentHashMap<>();

    private XKeyPair(byte[] privateKey) {
        this.privateKey = privateKey;
        byte[] pub = new byte[X25519.POINT_SIZE];
        X25519.scalarMultBase(privateKey, 0, pub, 0);
        this.publicKey = NKeyCodec.encodePublic(KeyType.CURVE, pub);
    }

    public static XKeyPair create() {
        byte[] raw = new byte[32];
        RANDOM.nextBytes(raw);
        return new XKeyPair(raw);
    }

    public static XKeyPair fromSeed(String seed, String field) {
        return new XKeyPair(NKeyCodec.decodeSeed(seed, KeyType.CURVE, field));
    }

    /** Builds from a raw 32-byte private key (tests and known-answer vectors). */
    static XKeyPair fromRaw(byte[] raw) {
        return new XKeyPair(raw.clone());
    }

    /** The encoded public key ({@code X...}). */
    public String publicKey() {
        return publicKey;
    }

    /** The encoded seed ({@code SX...}). A secret: never log it. */
    public String seed() {
        return NKeyCodec.encodeSeed(KeyType.CURVE, privateKey);
    }

    /** Seals {@code message} for {@code recipient} (an {@code X...} key) in the xkv1 format. */
    public byte[] seal(byte[] message, String recipient) {
        byte[] nonce = new byte[NONCE];
        RANDOM.nextBytes(nonce);
        byte[] boxed = boxWithKey(message, nonce, boxKey(recipient, "recipient"));
        byte[] out = new byte[VERSION.length + NONCE + boxed.length];
        System.arraycopy(VERSION, 0, out, 0, VERSION.length);
        System.arraycopy(nonce, 0, out, VERSION.length, NONCE);
        System.arraycopy(boxed, 0, out, VERSION.length + NONCE, boxed.length);
        return out;
    }

    /**
     * Opens an xkv1 message that {@code sender} (an {@code X...} key) sealed for this key.
     *
     * @throws CotalException {@code unauthenticated} when the format, key or tag is wrong
     */
    public byte[] open(byte[] sealed, String sender) {
        if (sealed == null || sealed.length < VERSION.length + NONCE + TAG
                || !Arrays.equals(sealed, 0, VERSION.length, VERSION, 0, VERSION.length)) {
            throw CotalException.unauthenticated("sealed message is not xkv1");
        }
        byte[] nonce = Arrays.copyOfRange(sealed, VERSION.length, VERSION.length + NONCE);
        byte[] boxed = Arrays.copyOfRange(sealed, VERSION.length + NONCE, sealed.length);
        return unboxWithKey(boxed, nonce, boxKey(sender, "sender"));
    }

    private byte[] boxKey(String peer, String field) {
        byte[] key = shared.get(peer);
        if (key == null) {
            key = sharedKey(NKeyCodec.decodePublic(peer, KeyType.CURVE, field));
            if (shared.size() >= SHARED_CACHE) {
                shared.clear();
            }
            shared.put(peer, key);
        }
        return key.clone();
    }

    /** NaCl crypto_box with the peer's public key: tag(16) || ciphertext. */
    byte[] box(byte[] message, byte[] nonce, byte[] theirPublic) {
        return boxWithKey(message, nonce, sharedKey(theirPublic));
    }

    /** NaCl crypto_box_open with the peer's public key. */
    byte[] unbox(byte[] boxed, byte[] nonce, byte[] theirPublic) {
        return unboxWithKey(boxed, nonce, sharedKey(theirPublic));
    }

    private static byte[] boxWithKey(byte[] message, byte[] nonce, byte[] key) {
        XSalsa20Engine stream = stream(key, nonce);
        byte[] polyKey = new byte[32];
        stream.processBytes(new byte[32], 0, 32, polyKey, 0);
        byte[] out = new byte[TAG + message.length];
        stream.processBytes(message, 0, message.length, out, TAG);
        Poly1305 mac = new Poly1305();
        mac.init(new KeyParameter(polyKey));
        mac.update(out, TAG, message.length);
        mac.doFinal(out, 0);
        Arrays.fill(polyKey, (byte) 0);
        return out;
    }

    /** crypto_box_open with a box key; refuses a wrong tag before decrypting anything. */
    private static byte[] unboxWithKey(byte[] boxed, byte[] nonce, byte[] key) {
        XSalsa20Engine stream = stream(key, nonce);
        byte[] polyKey = new byte[32];
        stream.processBytes(new byte[32], 0, 32, polyKey, 0);
        int length = boxed.length - TAG;
        Poly1305 mac = new Poly1305();
        mac.init(new KeyParameter(polyKey));
        mac.update(boxed, TAG, length);
        byte[] tag = new byte[TAG];
        mac.doFinal(tag, 0);
        Arrays.fill(polyKey, (byte) 0);
        if (!MessageDigest.isEqual(tag, Arrays.copyOf(boxed, TAG))) {
            throw CotalException.unauthenticated("sealed message does not open with this key");
        }
        byte[] message = new byte[length];
        stream.processBytes(boxed, TAG, length, message, 0);
        return message;
    }

    /** crypto_box_beforenm: HSalsa20(X25519(ours, theirs), 0). */
    byte[] sharedKey(byte[] theirPublic) {
        byte[] point = new byte[32];
        if (!X25519.calculateAgreement(privateKey, 0, theirPublic, 0, point, 0)) {
            throw new CotalException(ErrorCode.UNAUTHENTICATED, "curve key agreement produced no shared secret");
        }
        byte[] key = hsalsa20(point, new byte[16]);
        Arrays.fill(point, (byte) 0);
        return key;
    }

    private static XSalsa20Engine stream(byte[] key, byte[] nonce) {
        XSalsa20Engine engine = new XSalsa20Engine();
        engine.init(true, new ParametersWithIV(new KeyParameter(key), nonce));
        Arrays.fill(key, (byte) 0);
        return engine;
    }

    /** HSalsa20: the Salsa20/20 core without the final addition, words 0,5,10,15,6,7,8,9. */
    static byte[] hsalsa20(byte[] key, byte[] input) {
        int[] state = new int[16];
        state[0] = 0x61707865;
        state[5] = 0x3320646e;
        state[10] = 0x79622d32;
        state[15] = 0x6b206574;
        for (int i = 0; i < 4; i++) {
            state[1 + i] = le32(key, 4 * i);
            state[11 + i] = le32(key, 16 + 4 * i);
            state[6 + i] = le32(input, 4 * i);
        }
        int[] mixed = new int[16];
        Salsa20Engine.salsaCore(20, state, mixed); // adds the input back: subtract it below
        int[] words = {0, 5, 10, 15, 6, 7, 8, 9};
        byte[] out = new byte[32];
        for (int i = 0; i < words.length; i++) {
            int w = mixed[words[i]] - state[words[i]];
            out[4 * i] = (byte) w;
            out[4 * i + 1] = (byte) (w >>> 8);
            out[4 * i + 2] = (byte) (w >>> 16);
            out[4 * i + 3] = (byte) (w >>> 24);
        }
        Arrays.fill(mixed, 0);
        return out;
    }

    private static int le32(byte[] b, int off) {
        return (b[off] & 0xff) | (b[off + 1] & 0xff) << 8 | (b[off + 2] & 0xff) << 16 | (b[off + 3] & 0xff) << 24;
    }

    @Override
    public String toString() {
        return "XKeyPair[" + publicKey + "]";
    }
}
