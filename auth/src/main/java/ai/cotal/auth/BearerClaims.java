package ai.cotal.auth;

import java.util.List;
import java.util.Optional;

/**
 * A verified bearer's claims: the principal, the scope it asks for, its lifecycle uid, the
 * credential row it names, an optional parent and view, its times (unix seconds), the instance it
 * serves (present exactly with the view {@value EndpointInstance#SERVING_VIEW}), the manager
 * instance a {@code manager-caller} names (optional) and the session grant
 * {@code <instanceId>.<sessionId>} of a {@code session-caller} (present exactly with that view).
 */
public record BearerClaims(String owner, String actor, List<String> scope, String lifecycleUid, String credentialId,
        Optional<String> parent, Optional<String> view, long issuedAt, long expiresAt, Optional<EndpointInstance> serving,
        Optional<String> managerInstanceId, Optional<String> sessionGrant) {
    public BearerClaims {
        scope = List.copyOf(scope);
    }

    /** The claims of a bearer that names no manager instance and no session. */
    public BearerClaims(String owner, String actor, List<String> scope, String lifecycleUid, String credentialId,
            Optional<String> parent, Optional<String> view, long issuedAt, long expiresAt,
            Optional<EndpointInstance> serving) {
        this(owner, actor, scope, lifecycleUid, credentialId, parent, view, issuedAt, expiresAt, serving, Optional.empty(),
                Optional.empty());
    }

    /** The claims of a bearer that serves no instance. */
    public BearerClaims(String owner, String actor, List<String> scope, String lifecycleUid, String credentialId,
            Optional<String> parent, Optional<String> view, long issuedAt, long expiresAt) {
        this(owner, actor, scope, lifecycleUid, credentialId, parent, view, issuedAt, expiresAt, Optional.empty());
    }

    /** The connect attempt this bearer makes. */
    public ConnectAttempt attempt() {
        return new ConnectAttempt(owner, actor, scope, lifecycleUid, credentialId);
    }
}
