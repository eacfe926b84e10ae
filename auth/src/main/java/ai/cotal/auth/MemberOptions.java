package ai.cotal.auth;

import ai.cotal.core.CotalException;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.id.Principal;
import io.nats.client.Options;

/**
 * The jnats options of a member that connects through its space's auth callout (SPEC §13.16): the
 * space's public sentinel credential authenticates the connection to the broker, the bearer rides
 * as its connect token, and a fresh {@link InboxNonce} of the principal is its connection name and
 * inbox prefix (the callout admits no other). The caller adds the servers and its own choices
 * (error listener, reconnect policy) and builds:
 *
 * <pre>{@code
 * Options options = MemberOptions.builder(sentinel, principal, bearer).server(url).build();
 * try (Connection nc = Nats.connect(options)) { ... }
 * }</pre>
 *
 * <p>Stateless and thread-safe; each call draws a new nonce. A reconnect presents the same bearer:
 * once it expired, connect again with a new one.
 */
public final class MemberOptions {
    private MemberOptions() {
    }

    /**
     * A jnats options builder for {@code principal} presenting {@code bearer} through the callout
     * whose sentinel is {@code sentinel} (the join bundle's, or {@code CalloutAuth.sentinelCreds()}).
     *
     * @throws CotalException {@code bad-request} naming {@code sentinel}, {@code principal} or {@code bearer}
     */
    public static Options.Builder builder(Creds sentinel, Principal principal, String bearer) {
        if (sentinel == null || principal == null) {
            throw CotalException.badRequest(sentinel == null ? "sentinel" : "principal", "is required");
        }
        if (bearer == null || bearer.isBlank()) {
            throw CotalException.badRequest("bearer", "is required");
        }
        String nonce = InboxNonce.forPrincipal(principal);
        return new Options.Builder().authHandler(sentinel.authHandler()).token(bearer.toCharArray())
                .connectionName(nonce).inboxPrefix(InboxNonce.inboxPrefix(nonce))
                .maxControlLine(ServerConfig.MAX_CONTROL_LINE);
    }
}
