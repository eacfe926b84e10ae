package ai.cotal.auth;

import java.util.List;
import java.util.Optional;

/**
 * A verified bearer's claims: the principal, the scope it asks for, its lifecycle uid, the
 * credential row it names, an optional parent and view, its times (unix seconds), and the
 * instance it serves (present exactly with the view {@value EndpointInstance#SERVING_VIEW}).
 */
public record BearerClaims(String owner, String actor, List<String> scope, String lifecycleUid, String credentialId,
        Optional<String> parent, Optional<String> view, long issuedAt, long expiresAt, Optional<EndpointInstance> serving) {
    public BearerClaims {
        scope = List.copyOf(scope);
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
