package ai.cotal.auth;

import ai.cotal.core.CotalException;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.internal.keys.NKeyCodec;

/**
 * Where one connection stands on the broker: the server's id, the client id the server gave it,
 * and the user key it authenticated with. The plane claim records its two scanners' tuples.
 */
public record ConnTuple(String serverId, long cid, String userNkey) {
    public ConnTuple {
        if (serverId == null || serverId.isEmpty() || serverId.length() > 128) {
            throw CotalException.badRequest("serverId", "must be a non-empty server id");
        }
        if (cid <= 0 || cid > (1L << 53) - 1) {
            throw CotalException.badRequest("cid", "must be a positive safe integer");
        }
        if (!NKeyCodec.isPublic(userNkey, KeyType.USER)) {
            throw CotalException.badRequest("userNkey", "must be a user public key");
        }
    }
}
