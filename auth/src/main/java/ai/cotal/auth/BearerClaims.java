package ai.cotal.auth;

import ai.cotal.core.id.Actor;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A verified bearer's claims: the principal, the scope it asks for, its lifecycle uid, the
 * credential row it names, an optional parent and view, its times (unix seconds), the instance it
 * serves (present exactly with the view {@value EndpointInstance#SERVING_VIEW}), the manager
 * instance a {@code manager-caller} names (optional) and the session grant
 * {@code <instanceId>.<sessionId>} of a {@code session-caller} (present exactly with that view).
 * What {@link Bearers#verify} answers for a bearer {@link Bearers#issue} signed from a
 * {@link BearerRequest}. Immutable.
 *
 * @param principal the principal the bearer names ({@code sub} is its owner)
 * @param scope the scope it asks for
 * @param lifecycleUid the lifecycle uid it was issued at
 * @param credentialId the credential row it names
 * @param parent the principal it was issued under, if any
 * @param view its view, if any
 * @param issuedAt {@code iat}
 * @param expiresAt {@code exp}
 * @param serving the instance it serves, exactly with the serving view
 * @param managerInstanceId the manager instance a {@code manager-caller} names
 * @param sessionGrant the session grant of a {@code session-caller}
 */
public record BearerClaims(Principal principal, List<String> scope, LifecycleUid lifecycleUid, CredentialId credentialId,
        Optional<Principal> parent, Optional<String> view, long issuedAt, long expiresAt, Optional<EndpointInstance> serving,
        Optional<InstanceId> managerInstanceId, Optional<String> sessionGrant) {
    /** Refuses a missing part ({@code NullPointerException} naming it). */
    public BearerClaims {
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(lifecycleUid, "lifecycleUid");
        Objects.requireNonNull(credentialId, "credentialId");
        scope = List.copyOf(scope);
    }

    /** The claims of a bearer that names no manager instance and no session. */
    public BearerClaims(Principal principal, List<String> scope, LifecycleUid lifecycleUid, CredentialId credentialId,
            Optional<Principal> parent, Optional<String> view, long issuedAt, long expiresAt,
            Optional<EndpointInstance> serving) {
        this(principal, scope, lifecycleUid, credentialId, parent, view, issuedAt, expiresAt, serving, Optional.empty(),
                Optional.empty());
    }

    /** The claims of a bearer that serves no instance. */
    public BearerClaims(Principal principal, List<String> scope, LifecycleUid lifecycleUid, CredentialId credentialId,
            Optional<Principal> parent, Optional<String> view, long issuedAt, long expiresAt) {
        this(principal, scope, lifecycleUid, credentialId, parent, view, issuedAt, expiresAt, Optional.empty());
    }

    /** The issuer every bearer of {@code space} names ({@code iss}): {@code urn:cotal:auth:<space>}. */
    public static String issuerOf(String space) {
        return "urn:cotal:auth:" + space;
    }

    /** The principal's owner (the bearer's {@code sub}). */
    public Owner owner() {
        return principal.owner();
    }

    /** The principal's actor. */
    public Actor actor() {
        return principal.actor();
    }

    /** The connect attempt this bearer makes. */
    public ConnectAttempt attempt() {
        return new ConnectAttempt(principal, scope, lifecycleUid, credentialId);
    }
}
