package ai.cotal.core.jwt;

import java.util.List;

/**
 * What nats-server sends the auth callout: the server, the user nkey it generated for the client,
 * the client's information, its CONNECT options and TLS state. {@code iss} is the server key
 * ({@code N...}). {@link #toString()} leaves out the client's token and password.
 */
public record AuthorizationRequestClaim(ServerId serverId, String userNkey, ClientInformation clientInfo,
        ConnectOptions connectOpts, ClientTls clientTls, String requestNonce, List<String> tags) implements NatsClaim {
    public AuthorizationRequestClaim {
        tags = tags == null ? null : List.copyOf(tags);
    }

    @Override
    public ClaimType claimType() {
        return ClaimType.AUTHORIZATION_REQUEST;
    }

    /** The server that asks. */
    public record ServerId(String name, String host, String id, String version, String cluster, List<String> tags,
            String xkey) {
    }

    /** The connecting client as the server sees it. */
    public record ClientInformation(String host, Long id, String user, String name, List<String> tags,
            String nameTag, String kind, String type, String mqttId, String nonce) {
    }

    /** The client's CONNECT options. Holds the client's secrets: {@code toString()} hides them. */
    public record ConnectOptions(String jwt, String nkey, String sig, String authToken, String user, String pass,
            String name, String lang, String version, Integer protocol) {
        @Override
        public String toString() {
            return "ConnectOptions[nkey=" + nkey + ", user=" + user + ", name=" + name + ", lang=" + lang
                    + ", version=" + version + ", protocol=" + protocol + ", authToken=" + (authToken == null ? "absent" : "present")
                    + ", pass=" + (pass == null ? "absent" : "present") + ", jwt=" + (jwt == null ? "absent" : "present") + "]";
        }
    }

    /** The client's TLS state, when it connected over TLS. */
    public record ClientTls(String version, String cipher, List<String> certs, List<List<String>> verifiedChains) {
    }
}
