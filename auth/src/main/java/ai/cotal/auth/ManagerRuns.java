package ai.cotal.auth;

import ai.cotal.core.CotalException;
import ai.cotal.core.id.Actor;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import ai.cotal.core.id.RunId;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * Manager runs (SPEC §14.7, §14.8): the plane admits a run of a candidate manager for one of its
 * owner's live managed actors, and issues each attempt of it (a start, a resume at a waiting
 * checkpoint, an answer to one) a driver credential, at most once. A served resume or answer (one
 * a caller asked for) is issued only for a request the plane itself observed the caller publish,
 * only once, and only for what that request's envelope asked. Handed out by
 * {@link AuthAuthorityPlane#managerRuns()}; the stock service serves it on
 * {@code POST /manager-service-authority/run-admission}, {@code .../run-attempt} and, for the
 * space's operator on the loopback face, {@code .../run-operator-attempt}.
 *
 * <p>Thread-safe. Once the plane fenced or began closing every method refuses {@code unavailable};
 * bad input is {@code bad-request} naming the field, before anything is read or written.
 */
public interface ManagerRuns {

    /**
     * Admits run {@code request.runId()}: the holder's checks,
     * the managed actor live at its lifecycle (the plane's composed source check), the registered
     * cluster declares {@code run-start}; then the admission row, create-only. A replay with the
     * same terms answers the stored row.
     *
     * @throws ai.cotal.core.CotalException {@code permission-denied} (no {@code supervise}, not a
     *     candidate), {@code failed-precondition} (actor not live, no {@code run-start}),
     *     {@code already-exists} (the run was admitted with other terms)
     */
    Admission admit(Holder holder, AdmissionRequest request);

    /**
     * Issues one attempt in the order of SPEC §14.7;
     * a replay of an attempt id with the same terms answers the stored credential.
     *
     * @throws ai.cotal.core.CotalException with the refusals of SPEC §14.7
     */
    Attempt issueAttempt(Holder holder, AttemptRequest request);

    /**
     * Issues an attempt the space's operator drives (SPEC §14.7, operator attempts): a resume of a
     * waiting checkpoint, or an answer to one (its own, or with {@code served} a caller's request it
     * relays), for a run candidate manager {@code instanceId} of {@code owner} admitted. The
     * embedder authenticated the operator; {@code operator}'s audit id is stored in the attempt
     * row. Then the attempt's steps as for a manager, with the same once-only row and replay.
     *
     * @throws ai.cotal.core.CotalException {@code bad-request} (a {@code start}, a field out of
     *     grammar), {@code permission-denied} (not a candidate, another instance's run, an
     *     unobserved {@code served}), the other refusals of SPEC §14.7
     */
    Attempt issueOperatorAttempt(Granter.Operator operator, Owner owner, InstanceId instanceId, AttemptRequest request);

    /** The number of observed served run requests the plane holds now (at most {@value #MAX_OBSERVED}). */
    int observedCount();

    /** The most observed served run requests the plane keeps (SPEC §14.8). */
    int MAX_OBSERVED = 16_384;

    /**
     * The manager asking: its principal, the instance it serves and the scope it proved.
     *
     * @param principal the manager's principal
     * @param instanceId the instance it serves
     * @param scope the scope its bearer proved
     */
    record Holder(Principal principal, InstanceId instanceId, List<String> scope) {
        /** Refuses a missing part with {@code bad-request} naming it. */
        public Holder {
            if (principal == null || instanceId == null) {
                throw CotalException.badRequest(principal == null ? "principal" : "instanceId", "is required");
            }
            scope = List.copyOf(Objects.requireNonNull(scope, "scope"));
        }

        /** The manager's owner. */
        public Owner owner() {
            return principal.owner();
        }

        /** The manager's actor. */
        public Actor actor() {
            return principal.actor();
        }
    }

    /**
     * An admission: the run and the managed actor (at its lifecycle) that runs it.
     *
     * @param runId the run
     * @param actor the managed actor of the manager's owner that runs it
     * @param lifecycleUid the actor's lifecycle
     */
    record AdmissionRequest(RunId runId, Actor actor, LifecycleUid lifecycleUid) {
        /** Refuses a missing part with {@code bad-request} naming it. */
        public AdmissionRequest {
            if (runId == null || actor == null || lifecycleUid == null) {
                throw CotalException.badRequest(runId == null ? "runId" : actor == null ? "actor" : "lifecycleUid",
                        "is required");
            }
        }
    }

    /**
     * An admitted run as stored; {@code replayed} when this call wrote nothing.
     *
     * @param runId the run
     * @param owner the manager's owner
     * @param instanceId the manager instance that admitted it
     * @param actor the managed actor that runs it
     * @param lifecycleUid the actor's lifecycle
     * @param admittedAt when (ISO-8601)
     * @param replayed true when this call wrote nothing
     */
    record Admission(RunId runId, Owner owner, InstanceId instanceId, Actor actor, LifecycleUid lifecycleUid,
            String admittedAt, boolean replayed) {
    }

    /** The three attempts. */
    enum Kind {
        START, RESUME, ANSWER;

        /** The wire form ({@code start}, {@code resume}, {@code answer}). */
        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The command the registered cluster must declare: {@code run-<kind>}. */
        public String command() {
            return "run-" + wire();
        }

        /** The kind of a wire form; empty when it is none. */
        public static Optional<Kind> of(String wire) {
            for (Kind kind : values()) {
                if (kind.wire().equals(wire)) {
                    return Optional.of(kind);
                }
            }
            return Optional.empty();
        }
    }

    /**
     * An attempt: {@code driver} the user nkey public key the credential is for; {@code checkpoint}
     * with resume and answer; {@code answerId} with answer; {@code served} the subject the caller
     * published (required with answer, optional with resume, absent with start).
     */
    record AttemptRequest(RunId runId, RunId attemptId, Kind kind, String driver, Optional<String> checkpoint,
            Optional<String> answerId, Optional<String> served) {
        /** Refuses a missing run or attempt id with {@code bad-request} naming it. */
        public AttemptRequest {
            if (runId == null || attemptId == null) {
                throw CotalException.badRequest(runId == null ? "runId" : "attemptId", "is required");
            }
            Objects.requireNonNull(checkpoint, "checkpoint");
            Objects.requireNonNull(answerId, "answerId");
            Objects.requireNonNull(served, "served");
        }
    }

    /**
     * An issued attempt: the driver's user JWT (not a secret: the seed stays with the manager) and
     * its expiry (ISO-8601); {@code replayed} when this call signed and wrote nothing.
     */
    record Attempt(RunId runId, RunId attemptId, Kind kind, String jwt, String expiresAt, boolean replayed) {
        @Override
        public String toString() {
            return "Attempt[runId=" + runId + ", attemptId=" + attemptId + ", kind=" + kind.wire() + ", expiresAt="
                    + expiresAt + ", replayed=" + replayed + "]";
        }
    }
}
