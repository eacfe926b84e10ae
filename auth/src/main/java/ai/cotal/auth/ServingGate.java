package ai.cotal.auth;

import java.util.Locale;
import java.util.Objects;

/**
 * A serving gate (SPEC §14.2): who serves an endpoint instance now and in which process epoch.
 * Kept at {@code gate.<endpoint>.<instanceId>} in the space's auth store, written by the plane
 * only. {@code registrationRevision} is the revision of the instance's service spec the gate was
 * opened at; {@code revision} is the gate row's own (the stream sequence a CAS names). Immutable.
 */
public record ServingGate(String endpoint, String instanceId, State state, String principal, long processEpoch,
        long registrationRevision, String updatedAt, long revision) {
    public ServingGate {
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(instanceId, "instanceId");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(updatedAt, "updatedAt");
    }

    /** Whether the gate admits its instance. */
    public enum State {
        OPEN, FROZEN;

        /** The stored form. */
        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** True when the gate is open at exactly this epoch and registration revision. */
    public boolean openAt(long epoch, long registration) {
        return state == State.OPEN && processEpoch == epoch && registrationRevision == registration;
    }
}
