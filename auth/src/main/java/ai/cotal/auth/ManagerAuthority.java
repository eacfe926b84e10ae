package ai.cotal.auth;

import ai.cotal.core.creds.Creds;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The manager gate of a plane's space (SPEC §14.3, §14.4): what a manager registered (its service
 * spec, status and content-addressed contract artifacts, in the records store), the serving gate
 * the plane keeps for it (in the auth store, which only the plane writes), and the checks a
 * {@code manager-caller} connect needs. Handed out by {@link AuthAuthorityPlane#managers()}.
 *
 * <p>The manager itself is not part of this SDK: an embedder hosting managers mints each one's
 * registrar credential here, the manager writes its artifacts and spec with it, the embedder asks
 * the plane to open the gate, and the manager publishes its status at the gate's epoch
 * ({@link ai.cotal.auth.records.ManagerRecords} builds the documents). See docs/manager-authority.md.
 *
 * <p>Thread-safe. Once the plane fenced or began closing, every method refuses with
 * {@code unavailable}. Bad input is {@code bad-request} naming the field, before anything is read.
 */
public interface ManagerAuthority {

    /**
     * Mints the registrar credential of manager instance {@code instanceId}: a user JWT signed by
     * the data account's signing key that may publish only
     * {@code $KV.cotal_records_<token>.svc.manager.<instanceId>.>} (its spec, status and artifacts),
     * valid for {@code ttl} (1 s to 24 h), never renewed. Writes nothing.
     *
     * @throws ai.cotal.core.CotalException {@code permission-denied} when {@code owner.actor} holds no
     *     current ledger row
     */
    Creds registrarCredential(Principal manager, InstanceId instanceId, Duration ttl);

    /**
     * Opens (or, for a restarted manager, re-opens at the next process epoch) the gate of
     * {@code instanceId} for {@code owner.actor}, once its registered spec and contract verify
     * (SPEC §14.4). The plane first observes its own registration (a fenced plane writes no gate).
     *
     * @throws ai.cotal.core.CotalException {@code failed-precondition} (no spec, an artifact
     *     refusal, a frozen gate), {@code permission-denied} (another owner, actor or principal),
     *     {@code conflict} (the gate moved while it was opened)
     */
    ServingGate openGate(Principal manager, InstanceId instanceId);

    /**
     * Freezes the gate of {@code instanceId} (epoch and registration revision kept); a frozen gate is
     * answered as it is and never opened again.
     *
     * @throws ai.cotal.core.CotalException {@code not-found} when there is no gate
     */
    ServingGate freezeGate(InstanceId instanceId);

    /** The gate of manager instance {@code instanceId}, read from the stream leader; empty when none. */
    Optional<ServingGate> gate(InstanceId instanceId);

    /**
     * {@code registeredManagerCluster}: the manager cluster the spec registered at
     * {@code registrationRevision} names, each artifact read and verified against its digest.
     *
     * @throws ai.cotal.core.CotalException with the refusals of SPEC §14.3
     */
    ManagerCluster registeredCluster(Owner owner, InstanceId instanceId, long registrationRevision);

    /** The candidate verdict of manager instance {@code instanceId} for {@code owner} (SPEC §14.4). */
    Verdict verdict(Owner owner, InstanceId instanceId);

    /**
     * {@code selectManagerInstance}: {@code requested} when it is a candidate; without one, the one
     * candidate among the owner's manager gates.
     *
     * @throws ai.cotal.core.CotalException {@code permission-denied} when there is no candidate,
     *     {@code failed-precondition} when there are several
     */
    InstanceId selectInstance(Owner owner, Optional<InstanceId> requested);

    /**
     * {@code authorizeManagerCaller}: returns when {@code instanceId} is a candidate manager of
     * {@code owner}, refuses {@code permission-denied} naming the verdict otherwise.
     */
    void authorizeCaller(Owner owner, InstanceId instanceId);

    /**
     * {@code verifySession} (SPEC §14.5): the session {@code grant} ({@code <instanceId>.<sessionId>})
     * names, checked for {@code callerOwner.callerActor} now: the row active and unexpired, granted
     * to that principal, its manager a candidate, every command registered. Writes nothing.
     *
     * @throws ai.cotal.core.CotalException {@code permission-denied} with the reason,
     *     {@code failed-precondition} for a refusal of the registered cluster, {@code data-loss} for a
     *     corrupt row
     */
    Session verifySession(Principal caller, String grant);

    /**
     * {@code issueManagerServiceAuthority} (SPEC §14.6): the standing service credential of manager
     * instance {@code instanceId}, a user JWT for {@code userPublicKey} whose permissions are
     * re-derived from the registered surface at the gate's registration revision. With
     * {@code renewing}, the gate must still be at its revision and epoch. Writes nothing.
     *
     * @throws ai.cotal.core.CotalException {@code failed-precondition} (no gate, frozen, moved, not a
     *     candidate, a refusal of the registered cluster), {@code permission-denied} (not granted,
     *     another principal)
     */
    ServiceAuthority issueServiceAuthority(Principal manager, InstanceId instanceId, String userPublicKey,
            Optional<Renewal> renewing);

    /** The verdicts of SPEC §14.4, in the order they are decided. */
    enum Verdict {
        NO_GATE, FROZEN, NO_SPEC, OTHER_OWNER, OTHER_PRINCIPAL, STALE_REGISTRATION, UNOBSERVED, OTHER_EPOCH, CANDIDATE;

        /** The wire form ({@code no-gate}, ..., {@code candidate}). */
        public String wire() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /**
     * A registered manager cluster: its root's urn ({@code ai.cotal.manager}) and commands, and the
     * digests of its manifest and root.
     */
    record ManagerCluster(String urn, List<String> commands, String manifestDigest, String rootDigest) {
        public ManagerCluster {
            Objects.requireNonNull(urn, "urn");
            commands = List.copyOf(commands);
            Objects.requireNonNull(manifestDigest, "manifestDigest");
            Objects.requireNonNull(rootDigest, "rootDigest");
        }
    }

    /** A verified session (SPEC §14.5): the manager's owner and instance, the caller and what it may call. */
    record Session(String sessionId, String instanceId, String owner, String caller, List<String> commands,
            long expiresAt) {
        public Session {
            Objects.requireNonNull(sessionId, "sessionId");
            Objects.requireNonNull(instanceId, "instanceId");
            Objects.requireNonNull(owner, "owner");
            Objects.requireNonNull(caller, "caller");
            commands = List.copyOf(commands);
        }
    }

    /** What a renewal presents: the registration revision and process epoch of the credential it renews. */
    record Renewal(long registrationRevision, long processEpoch) {
    }

    /**
     * A standing service credential (SPEC §14.6): the user JWT (for the manager's own key; no
     * secret), the gate's registration revision and process epoch it was derived at (what a renewal
     * presents), the registered commands it serves, and its expiry (unix seconds).
     */
    record ServiceAuthority(String jwt, String instanceId, long registrationRevision, long processEpoch,
            List<String> commands, long expiresAt) {
        public ServiceAuthority {
            Objects.requireNonNull(jwt, "jwt");
            Objects.requireNonNull(instanceId, "instanceId");
            commands = List.copyOf(commands);
        }

        /** Names the instance and revision only; the JWT is a credential. */
        @Override
        public String toString() {
            return "ServiceAuthority[" + instanceId + " at revision " + registrationRevision + ", epoch " + processEpoch + "]";
        }

        /** The renewal this credential presents. */
        public Renewal renewal() {
            return new Renewal(registrationRevision, processEpoch);
        }
    }
}
