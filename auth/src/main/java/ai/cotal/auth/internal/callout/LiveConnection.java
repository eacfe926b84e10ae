package ai.cotal.auth.internal.callout;

import java.util.Objects;

/**
 * A connection the broker is admitting, as the broker names it (SPEC §13.16): the server's id
 * (one server run), the client id it gave the connection (never reused in that run), the user
 * key it generated and the admitted user JWT's {@code exp} (unix seconds). A revoke closes it
 * with {@code $SYS.REQ.SERVER.<serverId>.KICK}. Immutable.
 */
public record LiveConnection(String serverId, long clientId, String userNkey, long expiresAt) {
    public LiveConnection {
        Objects.requireNonNull(serverId, "serverId");
        Objects.requireNonNull(userNkey, "userNkey");
    }

    /**
     * The key every admitted user's name carries for its lifecycle (SPEC §13.16, §14.1):
     * {@code life:<lifecycleUid>}. A retirement sweeps the broker for it, so it closes connections
     * an earlier plane or a callout replica admitted too.
     */
    public static String lifecycleKey(String lifecycleUid) {
        return "life:" + lifecycleUid;
    }
}
