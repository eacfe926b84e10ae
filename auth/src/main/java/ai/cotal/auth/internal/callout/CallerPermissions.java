package ai.cotal.auth.internal.callout;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.BearerClaims;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.EndpointInstance;
import ai.cotal.auth.Grant;
import ai.cotal.auth.GrantSubjects;
import ai.cotal.auth.InboxNonce;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.issued.Ceiling;
import ai.cotal.core.issued.IssuedAuthority;
import ai.cotal.core.jwt.Permission;
import ai.cotal.core.jwt.ResponsePermission;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.internal.kv.StoreNames;
import ai.cotal.core.id.SpaceName;
import java.util.ArrayList;
import java.util.List;

/**
 * The permissions of an admitted user (SPEC §13.16). The plain view: the row's grant's subjects
 * ({@link Grant#subjects}: publish {@code P.chat.<o>.<a>.<ch>} per {@code allowPublish}, subscribe
 * {@code _INBOX_<nonce>.>} and {@code P.chat.*.*.<ch>} per {@code allowSubscribe}), and publish
 * {@code P.svc.ep.<tok>.<i>.<cap>} per capability of each active caller grant. The {@code endpoint-server} view serves its
 * instance's request subjects and publishes replies only. The {@code manager-caller} view is
 * admitted only while the owner has a candidate manager (SPEC §14.4) and publishes its owner's
 * manager commands and, per {@code run-<op>} scope, that op's served run requests (§14.8: a resume or
 * answer only as an issued caller, its subject ending in the caller's accepted token); an interactive row's is
 * issued (its ceiling recorded through the plane's issued authority, and the user may read its own
 * accepted row), a managed row's is the plain mint. The caller has already checked that the nonce is the row's
 * principal's ({@link InboxNonce#belongsTo}), so the inbox and the accepted row are that
 * principal's alone.
 */
final class CallerPermissions {
    /** The scopes that name a run op a caller may ask a manager for (SPEC §14.8). */
    static final List<String> RUN_SCOPES = List.of("run-start", "run-resume", "run-answer");

    private CallerPermissions() {
    }

    static UserClaim of(CalloutOptions options, ActorRow row, BearerClaims bearer, String nonce, EndpointAccess access) {
        String space = options.plane().space();
        String p = new SpaceName(space).subjectPrefix();
        List<String> tags = List.of("owner:" + row.owner(), "actor:" + row.actor(), "principal:" + row.principal());
        String account = options.signer().accountPublicKey();
        if (access.serving().isPresent()) {
            return serving(access.serving().get(), p, nonce, account, tags);
        }
        if (bearer.view().isEmpty()) { // the row's grant's subjects (Grant.subjects), then its endpoint capabilities
            GrantSubjects granted = Grant.of(row.scope(), row.allowSubscribe(), row.allowPublish())
                    .subjects(new SpaceName(space), row.principal(), nonce);
            List<String> pub = new ArrayList<>(granted.publish());
            for (EndpointAccess.Grant grant : access.grants()) {
                grant.capabilities().forEach(cap -> pub.add(grant.instance().subjectStem(p) + "." + cap));
            }
            return UserClaim.of(pub.isEmpty() ? Permission.none() : Permission.allow(pub),
                    Permission.allow(granted.subscribe()), account, tags);
        }
        if (!bearer.view().get().equals(BearerRequest.ManagerCaller.VIEW)) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, "view: unknown view '"
                    + ai.cotal.core.internal.json.ClosedJson.fieldName(bearer.view().get()) + "'");
        }
        options.plane().authorizeManagerCaller(bearer); // only while the owner has a candidate manager (SPEC §14.4)
        boolean issued = row.kind() == ActorRow.Kind.INTERACTIVE;
        List<String> calls = managerCalls(p, row.owner().value(), bearer.scope(), issued
                ? java.util.Optional.of(IssuedAuthority.acceptedToken(nonce)) : java.util.Optional.empty());
        if (!issued) { // a managed row: the plain mint, nothing recorded
            return UserClaim.of(calls.isEmpty() ? Permission.none() : Permission.allow(calls),
                    Permission.allow(List.of(InboxNonce.inboxPrefix(nonce) + ".>")), account, tags);
        }
        Ceiling ceiling = new Ceiling(calls.isEmpty() ? Ceiling.Side.none() : Ceiling.Side.patterns(calls, List.of()),
                Ceiling.Side.patterns(List.of(InboxNonce.inboxPrefix(nonce) + ".>"), List.of()));
        Ceiling granted = options.plane().issueUserCaller(bearer, nonce, ceiling);
        String token = IssuedAuthority.acceptedToken(nonce);
        String bucket = StoreNames.bucket("accepted", space);
        List<String> pub = new ArrayList<>(CalloutHandler.allow(granted.publish()));
        pub.add("$JS.API.DIRECT.GET.KV_" + bucket + ".$KV." + bucket + ".accepted.v1." + token);
        return UserClaim.of(Permission.allowDeny(pub, granted.publish().deny().isEmpty() ? null : granted.publish().deny()),
                Permission.allowDeny(CalloutHandler.allow(granted.subscribe()),
                        granted.subscribe().deny().isEmpty() ? null : granted.subscribe().deny()), account, tags);
    }

    /**
     * What a {@code manager-caller} of {@code owner} may publish (SPEC §14.4, §14.8): its owner's
     * manager command {@code P.svc.manager.<owner>.<scope>} per bearer scope, and for a scope
     * {@code run-<op>} also that op's served run requests: {@code P.svc.manager.<owner>.run.start.*.*}
     * for {@code run-start}; for {@code run-resume} and {@code run-answer}, only an issued caller
     * ({@code caller} its accepted token), {@code P.svc.manager.<owner>.run.<op>.*.<caller>}, so
     * the subject names the issuance the plane resolves at the forward. Its own owner's manager
     * only, the ops its bearer names only.
     */
    static List<String> managerCalls(String p, String owner, List<String> scope, java.util.Optional<String> caller) {
        List<String> calls = new ArrayList<>();
        for (String s : scope) {
            calls.add(p + ".svc.manager." + owner + "." + s);
            if (s.equals("run-start")) {
                calls.add(p + ".svc.manager." + owner + ".run.start.*.*");
            } else if (RUN_SCOPES.contains(s) && caller.isPresent()) {
                calls.add(ai.cotal.core.internal.grants.AuthorityGrants.runCallerGrant(p, owner,
                        ai.cotal.auth.ManagerRuns.Kind.of(s.substring("run-".length())).orElseThrow().wire(), caller.get()));
            }
        }
        return calls;
    }

    /**
     * A {@code session-caller} (SPEC §14.5), its session already verified: publish the manager's
     * {@code P.svc.manager.<owner>.<command>} per session command, subscribe its inbox; the plain
     * mint, nothing recorded.
     */
    static UserClaim session(CalloutOptions options, ActorRow row, ai.cotal.auth.ManagerAuthority.Session session,
            String nonce) {
        String p = new SpaceName(options.plane().space()).subjectPrefix();
        List<String> pub = new ArrayList<>();
        session.commands().forEach(command -> pub.add(p + ".svc.manager." + session.owner() + "." + command));
        return UserClaim.of(Permission.allow(pub), Permission.allow(List.of(InboxNonce.inboxPrefix(nonce) + ".>")),
                options.signer().accountPublicKey(), List.of("owner:" + row.owner(), "actor:" + row.actor(),
                        "principal:" + row.principal()));
    }

    /**
     * A serving connection: subscribe the instance's request subjects (plain or queue) and its own
     * inbox; publish nothing but one reply to each request it received ({@code resp}, the broker's
     * default window).
     */
    private static UserClaim serving(EndpointInstance instance, String p, String nonce, String account, List<String> tags) {
        List<String> tagged = new ArrayList<>(tags);
        tagged.add(EndpointAccess.servingKey(instance));
        return new UserClaim(Permission.none(), Permission.allow(List.of(instance.subjectStem(p) + ".>",
                InboxNonce.inboxPrefix(nonce) + ".>")), new ResponsePermission(1, 0), null, null, null, -1L, -1L, -1L,
                null, null, null, account, tagged);
    }
}
