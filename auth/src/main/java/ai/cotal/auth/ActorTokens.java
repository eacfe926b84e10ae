package ai.cotal.auth;

import ai.cotal.core.CotalException;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.internal.keys.NKeyCodec;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Locale;

/**
 * The values a host mints when it grants a managed actor (an agent), in the forms the ledger and
 * the token exchange expect (SPEC §13.14, §13.17): the agent's secret actor token, the hash the
 * managed row keeps instead of it, and a lifecycle uid. Stateless and thread-safe.
 *
 * <pre>{@code
 * String token = ActorTokens.newActorToken();          // give it to the agent, keep it nowhere else
 * plane.ledger().grantManagedActor(Principal.of(owner, "agent-1"), Grant.of(scope, subscribe, publish),
 *         ActorTokens.tokenHash(token), ActorTokens.newLifecycleUid());
 * }</pre>
 */
public final class ActorTokens {
    private static final SecureRandom RANDOM = new SecureRandom();

    private ActorTokens() {
    }

    /** A fresh actor token: 32 random bytes, base64url without padding (43 characters). */
    public static String newActorToken() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /**
     * The managed row's {@code tokenHash} for {@code actorToken}: lowercase hex of SHA-256 over its
     * UTF-8 bytes, exactly what the exchange's agent arm compares. {@code bad-request} when empty.
     */
    public static String tokenHash(String actorToken) {
        if (actorToken == null || actorToken.isEmpty()) {
            throw CotalException.badRequest("actorToken", "is required");
        }
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(
                    actorToken.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw CotalException.internal("SHA-256 unavailable", e);
        }
    }

    /** A fresh lifecycle uid: 20 random bytes as 32 lowercase base32 characters (the form every grant mints). */
    public static LifecycleUid newLifecycleUid() {
        byte[] bytes = new byte[20];
        RANDOM.nextBytes(bytes);
        return new LifecycleUid(NKeyCodec.base32(bytes).toLowerCase(Locale.ROOT));
    }
}
