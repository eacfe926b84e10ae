package ai.cotal.auth;

import ai.cotal.core.CotalException;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;

/**
 * A connect credential row the plane minted ({@link ConnectCredentials#mint}, SPEC §13.14): its id,
 * which a bearer names and {@link ConnectCredentials#revoke} removes, and the principal and
 * lifecycle uid it was minted for, which a member's bearer carries
 * ({@link BearerRequest#member(ConnectCredential, java.time.Duration)}). Holds no secret. Immutable.
 *
 * @param id           the credential row's id
 * @param principal    the principal it admits
 * @param lifecycleUid the lifecycle of the principal's grant it was minted at
 */
public record ConnectCredential(CredentialId id, Principal principal, LifecycleUid lifecycleUid) {
    /** Checks that every part is there; {@code bad-request} naming the missing one. */
    public ConnectCredential {
        if (id == null || principal == null || lifecycleUid == null) {
            throw CotalException.badRequest(id == null ? "id" : principal == null ? "principal" : "lifecycleUid",
                    "is required");
        }
    }
}
