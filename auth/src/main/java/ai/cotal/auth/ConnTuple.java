package ai.cotal.auth;

import ai.cotal.core.CotalException;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.internal.keys.NKeyCodec;

/**
 * Where one connection stands on the broker: the server's id (one server run: nats-server draws a
 * new one at every start), the server's name (its {@code server_name}, or its id when it has none;
 * it outlives restarts), the client id the server gave the connection, and the user key it
 * authenticated with. The plane claim records its two scanners' tuples (SPEC §13.13). Immutable.
 */
public record ConnTuple(String serverId, String serverName, long cid, String userNkey) {
    public ConnTuple {
        if (serverId == null || serverId.isEmpty() || serverId.length() > 128) {
            throw CotalException.badRequest("serverId", "must be a non-empty server id");
        }
        if (serverName == null || serverName.isEmpty() || serverName.length() > 128) {
            throw CotalException.badRequest("serverName", "must be a non-empty server name of at most 128 characters");
        }
        if (cid <= 0 || cid > (1L << 53) - 1) {
            throw CotalException.badRequest("cid", "must be a positive safe integer");
        }
        if (!NKeyCodec.isPublic(userNkey, KeyType.USER)) {
            throw CotalException.badRequest("userNkey", "must be a user public key");
        }
    }
}
