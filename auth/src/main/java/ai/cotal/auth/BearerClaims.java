package ai.cotal.auth;

import java.util.List;
import java.util.Optional;

/**
 * A verified bearer's claims: the principal, the scope it asks for, its lifecycle uid, the
 * credential row it names, an optional parent and view, and its times (unix seconds).
 */
public record BearerClaims(String owner, String actor, List<String> scope, String lifecycleUid, String credentialId,
        Optional<String> parent, Optional<String> view, long issuedAt, long expiresAt) {
    public BearerClaims {
        scope = List.copyOf(scope);
    }

    /** The connect attempt this bearer makes. */
    public ConnectAttempt attempt() {
        return new ConnectAttempt(owner, actor, scope, lifecycleUid, credentialId);
    }
}
