package ai.cotal.core.keys;

import ai.cotal.core.internal.keys.NKeyCodec;
import ai.cotal.core.CotalException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.math.ec.rfc8032.Ed25519;

/**
 * An Ed25519 nkey (operator, account, user, server or cluster) that can sign. Signing goes
 * straight to Bouncy Castle with the public key precomputed, the fastest Ed25519 on the JVM here.
 *
 * <p>Immutable and thread-safe. {@link #toString()} shows the type and public key only; the seed
 * leaves this object only through {@link #seed()}.
 */
public final class NKeyPair {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int CACHE_LIMIT = 4096;
    private static final Map<String, Ed25519PublicKeyParameters> PUBLIC_KEYS = new ConcurrentHashMap<>();

    private final KeyType type;
    private final Ed25519PrivateKeyParameters privateKey;
    private final String publicKey;

    private NKeyPair(KeyType type, byte[] seed) {
        this.type = type;
        this.privateKey = new Ed25519PrivateKeyParameters(seed, 0);
        // also caches the public point inside privateKey, which sign(...) reads
        Ed25519PublicKeyParameters publicParams = privateKey.generatePublicKey();
        this.publicKey = NKeyCodec.encodePublic(type, publicParams.getEncoded());
        Arrays.fill(seed, (byte) 0);
    }

    /** A new random key of {@code type} (any type but {@link KeyType#CURVE}). */
    public static NKeyPair create(KeyType type) {
        Objects.requireNonNull(type, "type");
        if (type == KeyType.CURVE) {
            throw CotalException.badRequest("type", "curve keys are XKeyPair, not NKeyPair");
        }
        byte[] seed = new byte[32];
        RANDOM.nextBytes(seed);
        return new NKeyPair(type, seed);
    }

    /** The key a seed encodes; {@code expected} (null: any Ed25519 type) is enforced. */
    public static NKeyPair fromSeed(String seed, KeyType expected, String field) {
        KeyType type = NKeyCodec.typeOfSeed(seed, field);
        if (type == KeyType.CURVE || (expected != null && type != expected)) {
            throw CotalException.badRequest(field, "seed is not " + (expected == null ? "an Ed25519" : expected.name().toLowerCase(java.util.Locale.ROOT)) + " seed");
        }
        return new NKeyPair(type, NKeyCodec.decodeSeed(seed, type, field));
    }

    public KeyType type() {
        return type;
    }

    /** The encoded public key ({@code O...}, {@code A...}, {@code U...}). */
    public String publicKey() {
        return publicKey;
    }

    /** The encoded seed ({@code SO...}, {@code SA...}, {@code SU...}). A secret: never log it. */
    public String seed() {
        byte[] raw = privateKey.getEncoded();
        try {
            return NKeyCodec.encodeSeed(type, raw);
        } finally {
            Arrays.fill(raw, (byte) 0);
        }
    }

    /** The 64-byte Ed25519 signature of {@code data}. */
    public byte[] sign(byte[] data) {
        byte[] signature = new byte[Ed25519.SIGNATURE_SIZE];
        privateKey.sign(Ed25519.Algorithm.Ed25519, null, data, 0, data.length, signature, 0);
        return signature;
    }

    /** True when {@code signature} is {@code publicKey}'s Ed25519 signature of {@code data}. */
    public static boolean verify(String publicKey, byte[] data, byte[] signature) {
        if (signature == null || signature.length != Ed25519.SIGNATURE_SIZE) {
            return false;
        }
        Ed25519PublicKeyParameters params = PUBLIC_KEYS.get(publicKey);
        if (params == null) {
            KeyType type;
            try {
                type = NKeyCodec.typeOfPublic(publicKey, "publicKey");
            } catch (CotalException e) {
                return false;
            }
            if (type == KeyType.CURVE) {
                return false;
            }
            params = new Ed25519PublicKeyParameters(NKeyCodec.decodePublic(publicKey, type, "publicKey"), 0);
            if (PUBLIC_KEYS.size() >= CACHE_LIMIT) {
                PUBLIC_KEYS.clear();
            }
            PUBLIC_KEYS.put(publicKey, params);
        }
        return params.verify(Ed25519.Algorithm.Ed25519, null, data, 0, data.length, signature, 0);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NKeyPair other && other.publicKey.equals(publicKey);
    }

    @Override
    public int hashCode() {
        return publicKey.hashCode();
    }

    @Override
    public String toString() {
        return "NKeyPair[" + type + " " + publicKey + "]";
    }
}
