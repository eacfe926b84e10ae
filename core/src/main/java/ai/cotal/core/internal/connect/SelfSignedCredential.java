package ai.cotal.core.internal.connect;

import ai.cotal.core.keys.NKeyPair;
import io.nats.client.AuthHandler;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A user JWT the SDK signs itself for a key it holds (the auth plane's authority connections, an
 * invocation's effect connection), given to
 * {@link ai.cotal.core.connect.NatsConnector.Builder#selfSigned}: the nonce is signed with
 * {@code key} and the JWT {@code jwt} supplies is presented at every (re)connect, so a renewed JWT
 * is picked up. Not API: a broker refusing such a JWT does not trust the space's signing key yet,
 * which the connector reports as {@code unavailable}, not as a refused caller credential.
 * Immutable; {@code jwt} must be safe to call from jnats' threads.
 */
public record SelfSignedCredential(NKeyPair key, Supplier<String> jwt) {
    public SelfSignedCredential {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(jwt, "jwt");
    }

    /**
     * The jnats auth handler: signing goes straight to {@code key}, and the JWT {@code jwt} supplies
     * is read at each (re)connect, so a renewed JWT is picked up.
     */
    public AuthHandler authHandler() {
        return new AuthHandler() {
            @Override
            public byte[] sign(byte[] nonce) {
                return key.sign(nonce);
            }

            @Override
            public char[] getID() {
                return key.publicKey().toCharArray();
            }

            @Override
            public char[] getJWT() {
                return jwt.get().toCharArray();
            }
        };
    }

    /** {@code _INBOX_<user key>}: the only subjects the SDK's own user JWTs let it subscribe. */
    public String inboxPrefix() {
        return "_INBOX_" + key.publicKey();
    }
}
