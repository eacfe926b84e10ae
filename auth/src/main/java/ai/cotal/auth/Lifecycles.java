package ai.cotal.auth;

import ai.cotal.core.id.Actor;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The lifecycles of a plane's space (SPEC §14.1): each alias {@code <owner>.<actor>} has a head
 * naming its current lifecycle uid, and a lifecycle can be retired for good (its credential rows
 * deleted, its live connections closed, every later connect and mint at it refused). Handed out by
 * {@link AuthAuthorityPlane#lifecycles()}; the stock service serves the two retirements on its
 * loopback face ({@code POST /interactive-lifecycle/retire}, {@code POST /managed-lifecycle/retire}).
 *
 * <p>An alias is a {@link Principal} and a lifecycle a {@link LifecycleUid}: a value of either type
 * is in grammar (SPEC §1.1), so no call here refuses its arguments' text. Thread-safe. Once the
 * plane fenced or began closing, every method refuses with {@code unavailable}.
 */
public interface Lifecycles {

    /**
     * Retires an interactive lifecycle ({@code retireInteractiveLifecycle}): {@code notStarted} when
     * the alias has no head or a retired head at another uid, {@code conflict} when its head is at
     * another live uid, {@code alreadyRetired}, or {@code retired} once the barrier held. A replay
     * (same uid) finishes the same operation.
     *
     * @throws ai.cotal.core.CotalException {@code failed-precondition} when the lifecycle is managed,
     *     {@code unavailable} when the barrier could not complete now (retry; the operation stays owed)
     */
    Retirement retireInteractive(Principal principal, LifecycleUid lifecycleUid);

    /**
     * Retires a managed lifecycle ({@code retireManagedLifecycle}), answered like
     * {@link #retireInteractive}; refused {@code failed-precondition} while the managed grant is
     * still at that uid (revoke or re-grant the actor first).
     */
    Retirement retireManaged(Principal principal, LifecycleUid lifecycleUid);

    /**
     * Makes {@code lifecycleUid} the alias's current lifecycle ({@code activateManagedLifecycle});
     * the managed ledger row must be at exactly that uid. A mint does the same for its row's uid.
     *
     * @throws ai.cotal.core.CotalException {@code failed-precondition} when that lifecycle is retired
     *     or the row is elsewhere, {@code unavailable} while a retirement of the previous one runs
     */
    Activation activateManaged(Principal principal, LifecycleUid lifecycleUid);

    /** The alias's head, read from the stream leader; empty when none was written. */
    Optional<Head> head(Principal principal);

    /** What the plane's boot crash-resume did when it opened. */
    Resume resumedAtOpen();

    /** The operation id of an interactive retirement: hex SHA-256 of {@code "interactive-retire:" + uid}, first 26. */
    static String interactiveRetirementOpId(String lifecycleUid) {
        return opId("interactive-retire:", lifecycleUid);
    }

    /** The operation id of a managed retirement ({@code managedRetirementOpId}): hex SHA-256 of {@code "managed-retire:" + uid}, first 26. */
    static String managedRetirementOpId(String lifecycleUid) {
        return opId("managed-retire:", lifecycleUid);
    }

    private static String opId(String prefix, String lifecycleUid) {
        Objects.requireNonNull(lifecycleUid, "lifecycleUid");
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest((prefix + lifecycleUid)
                    .getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest).substring(0, 26);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing", e);
        }
    }

    /** Where a head's lifecycle stands. */
    enum State {
        ACTIVE, RETIRING, RETIRED;

        /** The stored form. */
        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * An alias's head: its current lifecycle, its kind and state, and the retirement that moved it
     * ({@code opId}, present exactly when the state is not {@code ACTIVE}). Immutable.
     */
    record Head(Principal principal, ActorRow.Kind kind, LifecycleUid lifecycleUid, State state, Optional<String> opId,
            String at) {
        /** Refuses a missing part ({@code NullPointerException} naming it). */
        public Head {
            Objects.requireNonNull(principal, "principal");
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(lifecycleUid, "lifecycleUid");
            Objects.requireNonNull(state, "state");
            Objects.requireNonNull(opId, "opId");
            Objects.requireNonNull(at, "at");
        }
    }

    /**
     * A retirement's answer; for {@code RETIRED}, the credential rows deleted, the live connections
     * the broker closed, and whether the broker was swept to its end for the lifecycle's connections
     * ({@code swept}; false: only the connections this plane admitted were known).
     */
    record Retirement(Outcome outcome, Principal principal, LifecycleUid lifecycleUid, Optional<String> opId,
            int credentialsRevoked, int connectionsClosed, boolean swept) {
        /** Refuses a missing part ({@code NullPointerException} naming it). */
        public Retirement {
            Objects.requireNonNull(outcome, "outcome");
            Objects.requireNonNull(principal, "principal");
            Objects.requireNonNull(lifecycleUid, "lifecycleUid");
            Objects.requireNonNull(opId, "opId");
        }

        /**
         * The JSON answer of the loopback retire routes and of the manager's retire rail (SPEC
         * §14.1): the outcome, the alias and uid, the opId when one ran, and for {@code retired}
         * what the barrier did. Insertion-ordered.
         */
        public java.util.Map<String, Object> wire() {
            java.util.Map<String, Object> answer = new java.util.LinkedHashMap<>();
            answer.put("outcome", outcome.wire());
            answer.put("owner", principal.owner().value());
            answer.put("actor", principal.actor().value());
            answer.put("lifecycleUid", lifecycleUid.value());
            opId.ifPresent(id -> answer.put("opId", id));
            if (outcome == Outcome.RETIRED) {
                answer.put("credentialsRevoked", credentialsRevoked);
                answer.put("connectionsClosed", connectionsClosed);
                answer.put("swept", swept);
            }
            return answer;
        }

        /** The four answers of SPEC §14.1. */
        public enum Outcome {
            NOT_STARTED("notStarted"), CONFLICT("conflict"), ALREADY_RETIRED("alreadyRetired"), RETIRED("retired");

            private final String wire;

            Outcome(String wire) {
                this.wire = wire;
            }

            /** The route's form. */
            public String wire() {
                return wire;
            }
        }
    }

    /** An activation's answer: {@code activated} (the head was written) or {@code alreadyActive}, and the head. */
    record Activation(boolean activated, Head head) {
        public Activation {
            Objects.requireNonNull(head, "head");
        }
    }

    /**
     * The boot crash-resume's report: the operation ids it finished and the aliases
     * ({@code <owner>.<actor>}) it left frozen because their resume failed.
     */
    record Resume(List<String> finished, List<String> frozen) {
        public Resume {
            finished = List.copyOf(finished);
            frozen = List.copyOf(frozen);
        }
    }
}
