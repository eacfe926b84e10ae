package ai.cotal.auth.internal.manager;

import ai.cotal.auth.ManagerAuthority;
import ai.cotal.auth.ManagerRuns;
import ai.cotal.auth.ServingGate;
import ai.cotal.auth.internal.connect.AuthorityRole;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.kv.StoreNames;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.jwt.Permission;
import ai.cotal.core.jwt.ResponsePermission;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.id.SpaceName;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code issueManagerServiceAuthority} and its renewal (SPEC §14.6): a remote manager's standing
 * service credential, its permissions re-derived at every issue from the registered surface
 * ({@code registeredManagerCluster} at the gate's registration revision), never from the request.
 * Signs a JWT for the manager's own user key; writes nothing. Thread-safe.
 */
final class ManagerServiceCredentials {
    private static final Pattern USER_KEY = Pattern.compile("U[A-Z2-7]{55}");

    private final ManagerGates gates;
    private final ManagerGates.Wiring w;
    private final ContractArtifacts artifacts;

    ManagerServiceCredentials(ManagerGates gates, ManagerGates.Wiring wiring, ContractArtifacts artifacts) {
        this.gates = gates;
        this.w = wiring;
        this.artifacts = artifacts;
    }

    ManagerAuthority.ServiceAuthority issue(String owner, String actor, String instanceId, String userPublicKey,
            Optional<ManagerAuthority.Renewal> renewing) {
        ManagerGates.checkPrincipal(owner, actor);
        ManagerGates.checkInstance(instanceId);
        if (userPublicKey == null || !USER_KEY.matcher(userPublicKey).matches()) {
            throw CotalException.badRequest("userPublicKey", "must be a user nkey public key (U and 55 of [A-Z2-7])");
        }
        if (renewing == null) {
            throw CotalException.badRequest("renew", "is required (empty for a first issue)");
        }
        renewing.ifPresent(r -> {
            if (!ServingDocuments.counter(r.registrationRevision())) {
                throw CotalException.badRequest("registrationRevision", "must be 1 to 2^53-1");
            }
            if (!ServingDocuments.counter(r.processEpoch())) {
                throw CotalException.badRequest("processEpoch", "must be 1 to 2^53-1");
            }
        });
        w.refuseIfUnavailable().run();
        w.observeRegistration().run();
        gates.requireGranted(owner, actor);
        Optional<ServingGate> read = w.records().gate(ManagerGates.ENDPOINT, instanceId);
        ServingGate gate = read.orElseThrow(() -> new CotalException(ErrorCode.FAILED_PRECONDITION, "manager instance "
                + instanceId + " has no gate"));
        if (gate.state() != ServingGate.State.OPEN) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "the manager gate of " + instanceId
                    + " is frozen; register a new instance");
        }
        if (!gate.principal().equals(owner + "." + actor)) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, "manager instance " + instanceId
                    + " is served by another principal");
        }
        if (renewing.isPresent() && (renewing.get().registrationRevision() != gate.registrationRevision()
                || renewing.get().processEpoch() != gate.processEpoch())) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "renewal refused: the manager gate of " + instanceId
                    + " moved to registration revision " + gate.registrationRevision() + " at process epoch "
                    + gate.processEpoch() + "; request a new authority");
        }
        ManagerAuthority.Verdict verdict = gates.verdict(owner, instanceId, read);
        if (verdict != ManagerAuthority.Verdict.CANDIDATE) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, "the manager service authority of " + instanceId
                    + " needs a candidate manager (" + verdict.wire() + ")");
        }
        ManagerAuthority.ManagerCluster cluster = artifacts.registeredManagerCluster(owner, instanceId,
                gate.registrationRevision());
        Instant now = w.clock().instant();
        long exp = now.plus(w.serviceTtl()).getEpochSecond();
        String jwt = NatsJwt.encode(ClaimSet.of(userPublicKey, "cotal:manager-service:" + instanceId,
                permissions(owner, actor, instanceId, userPublicKey, cluster.commands()), now).withExp(exp),
                w.signer().signing());
        return new ManagerAuthority.ServiceAuthority(jwt, instanceId, gate.registrationRevision(), gate.processEpoch(),
                cluster.commands(), exp);
    }

    /**
     * Serve the registered commands (subscribe, one reply each; a {@code run-<op>} command also that
     * op's served run requests of its owner), keep its own status and sessions,
     * send retire requests on its own instance's subject of the admin listener; nothing else.
     */
    private UserClaim permissions(String owner, String actor, String instanceId, String userPublicKey,
            List<String> commands) {
        String p = new SpaceName(w.space()).subjectPrefix();
        List<String> sub = new ArrayList<>();
        commands.forEach(command -> sub.add(p + ".svc.manager." + owner + "." + command));
        for (ManagerRuns.Kind op : ManagerRuns.Kind.values()) { // its callers' requests of each run op it registered
            if (commands.contains(op.command())) {
                sub.add(p + ".svc.manager." + owner + ".run." + op.wire() + ".*.*"); // SPEC §14.8
            }
        }
        sub.add("_INBOX_" + userPublicKey + ".>");
        String kv = "$KV." + StoreNames.bucket("records", w.space()) + ".svc.manager." + instanceId;
        List<String> pub = List.of(kv + ".status", kv + ".session.>",
                AuthorityRole.retireManagedSubject(w.space(), instanceId)); // its own retire rail (SPEC §14.1)
        return new UserClaim(Permission.allow(pub), Permission.allow(sub),
                new ResponsePermission(1, 0), null, null, null, -1L, -1L, -1L, null, null, null,
                w.signer().accountPublicKey(), List.of("owner:" + owner, "actor:" + actor, "principal:" + owner + "." + actor));
    }
}
