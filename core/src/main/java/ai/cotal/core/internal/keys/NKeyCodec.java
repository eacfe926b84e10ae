package ai.cotal.core.internal.keys;

import ai.cotal.core.keys.KeyType;
import ai.cotal.core.CotalException;
import java.util.Arrays;

/**
 * The nkey text encoding: base32 (RFC 4648, no padding) of prefix bytes, 32 raw key bytes and a
 * CRC-16/XMODEM checksum (little-endian). Public keys carry one prefix byte; seeds carry two
 * ({@code S} plus the key type). Stateless and thread-safe.
 */
public final class NKeyCodec {
    private static final int SEED_PREFIX = 18 << 3;
    private static final int RAW = 32;
    private static final char[] ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".toCharArray();
    private static final int[] DECODE = new int[128];

    static {
        Arrays.fill(DECODE, -1);
        for (int i = 0; i < ALPHABET.length; i++) {
            DECODE[ALPHABET[i]] = i;
        }
    }

    private NKeyCodec() {
    }

    /** Encodes a 32-byte public key of {@code type}. */
    public static String encodePublic(KeyType type, byte[] raw) {
        byte[] body = new byte[1 + RAW];
        body[0] = (byte) type.prefix();
        System.arraycopy(raw, 0, body, 1, RAW);
        return base32(withCrc(body));
    }

    /** Encodes a 32-byte seed of {@code type}. The result is a secret. */
    public static String encodeSeed(KeyType type, byte[] raw) {
        byte[] body = new byte[2 + RAW];
        body[0] = (byte) (SEED_PREFIX | (type.prefix() >> 5));
        body[1] = (byte) ((type.prefix() & 31) << 3);
        System.arraycopy(raw, 0, body, 2, RAW);
        byte[] full = withCrc(body);
        String text = base32(full);
        Arrays.fill(full, (byte) 0);
        return text;
    }

    /**
     * Decodes a public key, refusing any other type than {@code expected} (null accepts any).
     *
     * @param field names the input in the refusal message
     */
    public static byte[] decodePublic(String encoded, KeyType expected, String field) {
        byte[] body = checked(encoded, 1 + RAW + 2, field, "public key");
        KeyType type = KeyType.ofPrefix(body[0] & 0xff);
        if (type == null || (expected != null && type != expected)) {
            throw CotalException.badRequest(field, "not " + article(expected) + " public key");
        }
        return Arrays.copyOfRange(body, 1, 1 + RAW);
    }

    /** The type of an encoded public key, or a refusal naming {@code field}. */
    public static KeyType typeOfPublic(String encoded, String field) {
        byte[] body = checked(encoded, 1 + RAW + 2, field, "public key");
        KeyType type = KeyType.ofPrefix(body[0] & 0xff);
        if (type == null) {
            throw CotalException.badRequest(field, "unknown public key type");
        }
        return type;
    }

    /** True when {@code encoded} is a well-formed public key of {@code type}. */
    public static boolean isPublic(String encoded, KeyType type) {
        try {
            decodePublic(encoded, type, "key");
            return true;
        } catch (CotalException e) {
            return false;
        }
    }

    /** Decodes a seed of {@code expected} type (null: any). Never echoes the seed in a refusal. */
    public static byte[] decodeSeed(String encoded, KeyType expected, String field) {
        byte[] body = checked(encoded, 2 + RAW + 2, field, "seed");
        int b0 = body[0] & 0xff;
        int b1 = body[1] & 0xff;
        if ((b0 & 0xf8) != SEED_PREFIX) {
            throw CotalException.badRequest(field, "not a seed");
        }
        KeyType type = KeyType.ofPrefix(((b0 & 7) << 5) | (b1 >> 3));
        if (type == null || (expected != null && type != expected)) {
            throw CotalException.badRequest(field, "not " + article(expected) + " seed");
        }
        return Arrays.copyOfRange(body, 2, 2 + RAW);
    }

    /** The type encoded in a seed, without keeping its bytes. */
    public static KeyType typeOfSeed(String encoded, String field) {
        byte[] body = checked(encoded, 2 + RAW + 2, field, "seed");
        int b0 = body[0] & 0xff;
        int b1 = body[1] & 0xff;
        KeyType type = (b0 & 0xf8) == SEED_PREFIX ? KeyType.ofPrefix(((b0 & 7) << 5) | (b1 >> 3)) : null;
        Arrays.fill(body, (byte) 0);
        if (type == null) {
            throw CotalException.badRequest(field, "not a seed");
        }
        return type;
    }

    private static String article(KeyType type) {
        if (type == null) {
            return "a valid";
        }
        String name = type.name().toLowerCase(java.util.Locale.ROOT);
        return (type == KeyType.ACCOUNT || type == KeyType.OPERATOR ? "an " : "a ") + name;
    }

    private static byte[] checked(String encoded, int length, String field, String what) {
        if (encoded == null || encoded.isEmpty()) {
            throw CotalException.badRequest(field, "missing " + what);
        }
        byte[] data = base32Decode(encoded);
        if (data == null || data.length != length) {
            throw CotalException.badRequest(field, "malformed " + what);
        }
        int expected = crc16(data, length - 2);
        int actual = (data[length - 2] & 0xff) | ((data[length - 1] & 0xff) << 8);
        if (expected != actual) {
            throw CotalException.badRequest(field, "bad checksum in " + what);
        }
        return Arrays.copyOf(data, length - 2);
    }

    private static byte[] withCrc(byte[] body) {
        int crc = crc16(body, body.length);
        byte[] out = Arrays.copyOf(body, body.length + 2);
        out[body.length] = (byte) crc;
        out[body.length + 1] = (byte) (crc >>> 8);
        Arrays.fill(body, (byte) 0);
        return out;
    }

    static int crc16(byte[] data, int length) {
        int crc = 0;
        for (int i = 0; i < length; i++) {
            crc ^= (data[i] & 0xff) << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            crc &= 0xffff;
        }
        return crc;
    }

    /** RFC 4648 base32 without padding. */
    public static String base32(byte[] data) {
        StringBuilder out = new StringBuilder((data.length * 8 + 4) / 5);
        int buffer = 0;
        int bits = 0;
        for (byte b : data) {
            buffer = (buffer << 8) | (b & 0xff);
            bits += 8;
            while (bits >= 5) {
                out.append(ALPHABET[(buffer >>> (bits - 5)) & 31]);
                bits -= 5;
            }
        }
        if (bits > 0) {
            out.append(ALPHABET[(buffer << (5 - bits)) & 31]);
        }
        return out.toString();
    }

    private static byte[] base32Decode(String text) {
        byte[] out = new byte[text.length() * 5 / 8];
        int buffer = 0;
        int bits = 0;
        int n = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            int v = c < 128 ? DECODE[c] : -1;
            if (v < 0) {
                return null;
            }
            buffer = (buffer << 5) | v;
            bits += 5;
            if (bits >= 8) {
                if (n == out.length) {
                    return null;
                }
                out[n++] = (byte) (buffer >>> (bits - 8));
                bits -= 8;
            }
        }
        return n == out.length ? out : null;
    }
}
