package ai.cotal.auth;

import ai.cotal.core.CotalException;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import java.util.List;

/**
 * What a connecting bearer claims: the principal, the scope it wants, the lifecycle uid it was
 * issued for and the credential row it names. Immutable.
 *
 * @param principal the principal the bearer names
 * @param scope the scope it asks for (null is none)
 * @param lifecycleUid the lifecycle uid it was issued at
 * @param credentialId the credential row it names
 */
public record ConnectAttempt(Principal principal, List<String> scope, LifecycleUid lifecycleUid, CredentialId credentialId) {
    /** Refuses a missing principal, lifecycle uid or credential id with {@code bad-request} naming it. */
    public ConnectAttempt {
        scope = scope == null ? List.of() : List.copyOf(scope);
        if (principal == null || lifecycleUid == null || credentialId == null) {
            throw CotalException.badRequest(principal == null ? "principal" : lifecycleUid == null ? "lifecycleUid"
                    : "credentialId", "is required");
        }
    }
}
