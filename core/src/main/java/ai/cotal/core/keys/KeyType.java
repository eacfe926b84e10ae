package ai.cotal.core.keys;

/**
 * The kinds of nkey, each with the prefix byte its encoded form starts with. {@link #CURVE} keys
 * ({@code X...}, seeds {@code SX...}) are X25519 keys for sealing; the rest are Ed25519.
 */
public enum KeyType {
    OPERATOR(14 << 3, 'O'),
    ACCOUNT(0, 'A'),
    USER(20 << 3, 'U'),
    SERVER(13 << 3, 'N'),
    CLUSTER(2 << 3, 'C'),
    CURVE(23 << 3, 'X');

    private final int prefix;
    private final char letter;

    KeyType(int prefix, char letter) {
        this.prefix = prefix;
        this.letter = letter;
    }

    /** The NKey prefix byte of this type (the base32 encoding of its first byte gives {@link #letter()}). */
    public int prefix() {
        return prefix;
    }

    /** The first character of an encoded public key of this type. */
    public char letter() {
        return letter;
    }

    /** The type whose prefix byte is {@code prefix}, or {@code null}. */
    public static KeyType ofPrefix(int prefix) {
        for (KeyType type : values()) {
            if (type.prefix == prefix) {
                return type;
            }
        }
        return null;
    }
}
