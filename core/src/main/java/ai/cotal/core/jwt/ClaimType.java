package ai.cotal.core.jwt;

import ai.cotal.core.keys.KeyType;

/**
 * The claim types the codec reads and writes, with the key types their {@code iss} and
 * {@code sub} must have (null: any valid public key).
 */
public enum ClaimType {
    OPERATOR("operator", OperatorClaim.class, KeyType.OPERATOR, KeyType.OPERATOR),
    ACCOUNT("account", AccountClaim.class, KeyType.OPERATOR, KeyType.ACCOUNT),
    USER("user", UserClaim.class, KeyType.ACCOUNT, KeyType.USER),
    GENERIC("generic", GenericClaim.class, KeyType.OPERATOR, null),
    AUTHORIZATION_REQUEST("authorization_request", AuthorizationRequestClaim.class, KeyType.SERVER, KeyType.ACCOUNT),
    AUTHORIZATION_RESPONSE("authorization_response", AuthorizationResponseClaim.class, KeyType.ACCOUNT, KeyType.USER);

    private final String wire;
    private final Class<? extends NatsClaim> body;
    private final KeyType issuer;
    private final KeyType subject;

    ClaimType(String wire, Class<? extends NatsClaim> body, KeyType issuer, KeyType subject) {
        this.wire = wire;
        this.body = body;
        this.issuer = issuer;
        this.subject = subject;
    }

    public String wire() {
        return wire;
    }

    Class<? extends NatsClaim> body() {
        return body;
    }

    /** The key type {@code iss} must have. */
    public KeyType issuer() {
        return issuer;
    }

    /** The key type {@code sub} must have, or null for any. */
    public KeyType subject() {
        return subject;
    }

    static ClaimType ofWire(String wire) {
        for (ClaimType type : values()) {
            if (type.wire.equals(wire)) {
                return type;
            }
        }
        return null;
    }
}
