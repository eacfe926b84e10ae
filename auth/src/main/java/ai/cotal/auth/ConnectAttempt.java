package ai.cotal.auth;

import java.util.List;

/**
 * What a connecting bearer claims: the principal, the scope it wants, the lifecycle uid it was
 * issued for and the credential row it names.
 */
public record ConnectAttempt(String owner, String actor, List<String> scope, String lifecycleUid, String credentialId) {
    public ConnectAttempt {
        scope = scope == null ? List.of() : List.copyOf(scope);
    }
}
