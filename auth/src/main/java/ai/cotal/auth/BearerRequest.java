package ai.cotal.auth;

import ai.cotal.core.CotalException;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What a bearer says (SPEC §13.14), one record per kind, handed to {@link Bearers#issue}: a
 * {@link Member} (the plain view), a {@link Serving} bearer naming the endpoint instance it serves,
 * a {@link SessionCaller} naming the manager session it calls on, and a {@link ManagerCaller} of
 * an owner's manager, which may name the manager instance it is judged against.
 *
 * <pre>{@code
 * String bearer = plane.bearers().issue(BearerRequest.member(laptop, row.lifecycleUid(), credentialId,
 *         Duration.ofMinutes(5)));
 * }</pre>
 *
 * <p>Every kind names the principal ({@code sub} is its owner), the scope it asks for (grant items
 * of the principal's ledger row; the connect is refused beyond them), the lifecycle uid of the
 * principal's grant, the credential row it may connect with, its lifetime (more than zero, at most
 * {@link #MAX_TTL}) and, optionally, the principal it is issued under ({@code parent}). Each record
 * checks its parts when it is built: a missing or malformed one is a
 * {@link CotalException} {@code bad-request} naming the field, so a request that is built can be
 * signed. Immutable and thread-safe.
 */
public sealed interface BearerRequest permits BearerRequest.Member, BearerRequest.Serving, BearerRequest.SessionCaller,
        BearerRequest.ManagerCaller {
    /** The longest bearer a plane signs, and the longest a verifier accepts: 900 seconds. */
    Duration MAX_TTL = Duration.ofSeconds(900);

    /** The principal the bearer names; its owner is the bearer's {@code sub}. */
    Principal principal();

    /** The scope the bearer asks for (possibly empty). */
    List<String> scope();

    /** The lifecycle uid of the principal's grant. */
    LifecycleUid lifecycleUid();

    /** The credential row the bearer may connect with. */
    CredentialId credentialId();

    /** The bearer's lifetime, more than zero and at most {@link #MAX_TTL}. */
    Duration ttl();

    /** The principal the bearer is issued under, if any. */
    Optional<Principal> parent();

    /** The view the bearer carries ({@code act.view}); none for a {@link Member}. */
    Optional<String> view();

    /**
     * A plain bearer of {@code credential} (its principal, lifecycle uid and id, as
     * {@link ConnectCredentials#mint} answered them) that asks for no scope.
     *
     * @throws CotalException {@code bad-request} naming the missing or malformed field
     */
    static Member member(ConnectCredential credential, Duration ttl) {
        if (credential == null) {
            throw CotalException.badRequest("credential", "is required");
        }
        return member(credential.principal(), List.of(), credential.lifecycleUid(), credential.id(), ttl);
    }

    /**
     * A plain bearer asking for {@code scope}.
     *
     * @throws CotalException {@code bad-request} naming the missing or malformed field
     */
    static Member member(Principal principal, List<String> scope, LifecycleUid lifecycleUid, CredentialId credentialId,
            Duration ttl) {
        return new Member(principal, scope, lifecycleUid, credentialId, ttl, Optional.empty());
    }

    /**
     * A bearer of the serving connection of {@code instance}, asking for no scope.
     *
     * @throws CotalException {@code bad-request} naming the missing or malformed field
     */
    static Serving serving(Principal principal, LifecycleUid lifecycleUid, CredentialId credentialId, Duration ttl,
            EndpointInstance instance) {
        return new Serving(principal, List.of(), lifecycleUid, credentialId, ttl, Optional.empty(), instance);
    }

    /**
     * A bearer of a caller on the manager session {@code sessionGrant}
     * ({@code <instanceId>.<sessionId>}, {@link ai.cotal.auth.records.ManagerRecords#sessionGrant}), asking for no scope.
     *
     * @throws CotalException {@code bad-request} naming the missing or malformed field
     */
    static SessionCaller sessionCaller(Principal principal, LifecycleUid lifecycleUid, CredentialId credentialId,
            Duration ttl, String sessionGrant) {
        return new SessionCaller(principal, List.of(), lifecycleUid, credentialId, ttl, Optional.empty(), sessionGrant);
    }

    /**
     * A bearer of a caller of the owner's manager, whichever instance is the candidate; its scope
     * names the manager commands it may call.
     *
     * @throws CotalException {@code bad-request} naming the missing or malformed field
     */
    static ManagerCaller managerCaller(Principal principal, List<String> scope, LifecycleUid lifecycleUid,
            CredentialId credentialId, Duration ttl) {
        return new ManagerCaller(principal, scope, lifecycleUid, credentialId, ttl, Optional.empty(), Optional.empty());
    }

    /**
     * A bearer of a caller of the owner's manager instance {@code managerInstanceId}; its scope names
     * the manager commands it may call.
     *
     * @throws CotalException {@code bad-request} naming the missing or malformed field
     */
    static ManagerCaller managerCaller(Principal principal, List<String> scope, LifecycleUid lifecycleUid,
            CredentialId credentialId, Duration ttl, InstanceId managerInstanceId) {
        if (managerInstanceId == null) {
            throw CotalException.badRequest("managerInstanceId", "is required (or call the form without it)");
        }
        return new ManagerCaller(principal, scope, lifecycleUid, credentialId, ttl, Optional.empty(),
                Optional.of(managerInstanceId));
    }

    /**
     * A plain bearer: the connect is minted from the principal's ledger row and its caller grants
     * (SPEC §13.16).
     *
     * @param principal the principal it names
     * @param scope the scope it asks for
     * @param lifecycleUid the lifecycle uid of the principal's grant
     * @param credentialId the credential row it may connect with
     * @param ttl its lifetime
     * @param parent the principal it is issued under, if any (null is none)
     */
    record Member(Principal principal, List<String> scope, LifecycleUid lifecycleUid, CredentialId credentialId,
            Duration ttl, Optional<Principal> parent) implements BearerRequest {
        /** Checks the parts; {@code bad-request} naming the field. */
        public Member {
            scope = BearerRequest.checked(principal, scope, lifecycleUid, credentialId, ttl);
            parent = parent == null ? Optional.empty() : parent;
        }

        @Override
        public Optional<String> view() {
            return Optional.empty();
        }
    }

    /**
     * A bearer of the view {@value EndpointInstance#SERVING_VIEW}: the serving connection of one
     * endpoint instance (SPEC §13.16), which the callout admits only while the instance is approved.
     *
     * @param principal the principal it names
     * @param scope the scope it asks for
     * @param lifecycleUid the lifecycle uid of the principal's grant
     * @param credentialId the credential row it may connect with
     * @param ttl its lifetime
     * @param parent the principal it is issued under, if any (null is none)
     * @param instance the endpoint instance it serves
     */
    record Serving(Principal principal, List<String> scope, LifecycleUid lifecycleUid, CredentialId credentialId,
            Duration ttl, Optional<Principal> parent, EndpointInstance instance) implements BearerRequest {
        /** Checks the parts; {@code bad-request} naming the field. */
        public Serving {
            scope = BearerRequest.checked(principal, scope, lifecycleUid, credentialId, ttl);
            parent = parent == null ? Optional.empty() : parent;
            if (instance == null) {
                throw CotalException.badRequest("instance", "is required: the endpoint instance the bearer serves");
            }
        }

        @Override
        public Optional<String> view() {
            return Optional.of(EndpointInstance.SERVING_VIEW);
        }
    }

    /**
     * A bearer of the view {@value #VIEW}: a caller on a session its owner's manager wrote
     * (SPEC §14.5), admitted only while the session holds.
     *
     * @param principal the principal it names
     * @param scope the scope it asks for
     * @param lifecycleUid the lifecycle uid of the principal's grant
     * @param credentialId the credential row it may connect with
     * @param ttl its lifetime
     * @param parent the principal it is issued under, if any (null is none)
     * @param sessionGrant the session it calls on, {@code <instanceId>.<sessionId>}
     */
    record SessionCaller(Principal principal, List<String> scope, LifecycleUid lifecycleUid, CredentialId credentialId,
            Duration ttl, Optional<Principal> parent, String sessionGrant) implements BearerRequest {
        /** The view of a caller admitted on a manager's session (SPEC §14.5). */
        public static final String VIEW = "session-caller";
        /** A session grant: {@code <instanceId>.<sessionId>}, both instance ids. */
        public static final Pattern GRANT = Pattern.compile(InstanceId.PATTERN.pattern() + "\\."
                + InstanceId.PATTERN.pattern());
        /** The grammar of {@link #GRANT} in words, as refusals state it. */
        public static final String GRANT_RULE = "<instanceId>.<sessionId>, each " + InstanceId.RULE;

        /** Checks the parts; {@code bad-request} naming the field. */
        public SessionCaller {
            scope = BearerRequest.checked(principal, scope, lifecycleUid, credentialId, ttl);
            parent = parent == null ? Optional.empty() : parent;
            if (sessionGrant == null || !GRANT.matcher(sessionGrant).matches()) {
                throw CotalException.badRequest("sessionGrant", "must be " + GRANT_RULE);
            }
        }

        @Override
        public Optional<String> view() {
            return Optional.of(VIEW);
        }
    }

    /**
     * A bearer of the view {@value #VIEW}: a caller of its owner's manager (SPEC §14.4), admitted
     * only while the owner has a candidate manager; its scope names the manager commands it may call.
     *
     * @param principal the principal it names
     * @param scope the manager commands it asks for
     * @param lifecycleUid the lifecycle uid of the principal's grant
     * @param credentialId the credential row it may connect with
     * @param ttl its lifetime
     * @param parent the principal it is issued under, if any (null is none)
     * @param managerInstanceId the manager instance it is judged against, if any (null is none)
     */
    record ManagerCaller(Principal principal, List<String> scope, LifecycleUid lifecycleUid, CredentialId credentialId,
            Duration ttl, Optional<Principal> parent, Optional<InstanceId> managerInstanceId) implements BearerRequest {
        /** The view of a caller of an owner's manager (SPEC §14.4). */
        public static final String VIEW = "manager-caller";

        /** Checks the parts; {@code bad-request} naming the field. */
        public ManagerCaller {
            scope = BearerRequest.checked(principal, scope, lifecycleUid, credentialId, ttl);
            parent = parent == null ? Optional.empty() : parent;
            managerInstanceId = managerInstanceId == null ? Optional.empty() : managerInstanceId;
        }

        @Override
        public Optional<String> view() {
            return Optional.of(VIEW);
        }
    }

    /** The parts every kind has, checked in order; answers the scope, copied. */
    private static List<String> checked(Principal principal, List<String> scope, LifecycleUid lifecycleUid,
            CredentialId credentialId, Duration ttl) {
        if (principal == null) {
            throw CotalException.badRequest("principal", "is required");
        }
        List<String> items = Grant.items(scope, "scope");
        if (lifecycleUid == null) {
            throw CotalException.badRequest("lifecycleUid", "is required");
        }
        if (credentialId == null) {
            throw CotalException.badRequest("credentialId", "is required");
        }
        if (ttl == null || ttl.isNegative() || ttl.isZero() || ttl.compareTo(MAX_TTL) > 0) {
            throw CotalException.badRequest("ttl", "must be more than 0 and at most " + MAX_TTL.toSeconds() + " seconds");
        }
        return items;
    }
}
