package ai.cotal.auth;

import java.util.Objects;

/**
 * The plane's registration as the serving instance of endpoint {@code auth} (SPEC §14.2): its
 * restart identity (instance id and serve identity, from the identity root), the process epoch
 * this open advanced the gate to, and the revision of its service spec the gate was opened at.
 * A later open of the same identity advances the epoch and so fences this plane. Immutable.
 */
public record PlaneRegistration(String instanceId, String serveIdentity, long processEpoch, long registrationRevision) {
    public PlaneRegistration {
        Objects.requireNonNull(instanceId, "instanceId");
        Objects.requireNonNull(serveIdentity, "serveIdentity");
    }
}
