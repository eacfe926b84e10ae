package ai.cotal.auth.internal.run;

import ai.cotal.auth.Granter;
import ai.cotal.auth.ManagerAuthority;
import ai.cotal.auth.ManagerRuns.Attempt;
import ai.cotal.auth.ManagerRuns.AttemptRequest;
import ai.cotal.auth.ManagerRuns.Holder;
import ai.cotal.auth.ManagerRuns.Kind;
import ai.cotal.auth.ServingGate;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.util.List;

/**
 * Operator attempts (SPEC §14.7): the space's operator drives a resume or an answer of a run a
 * candidate manager admitted. The operator's checks are its own (no scope, no principal: the
 * embedder, or the loopback face's capability, authenticated it; the instance must be a
 * candidate of the owner); the attempt's steps, its once-only row and its replay are the
 * manager's ({@link PlaneManagerRuns#attempt}), the row naming the operator's audit id.
 * Thread-safe.
 */
final class OperatorRunAttempts {
    private final PlaneManagerRuns runs;
    private final ManagerAuthority managers;
    private final Runnable refuseIfUnavailable;

    OperatorRunAttempts(PlaneManagerRuns runs, ManagerAuthority managers, Runnable refuseIfUnavailable) {
        this.runs = runs;
        this.managers = managers;
        this.refuseIfUnavailable = refuseIfUnavailable;
    }

    Attempt issue(Granter.Operator operator, String owner, String instanceId, AttemptRequest request) {
        if (operator == null) {
            throw CotalException.badRequest("granter", "required: the operator's audit id");
        }
        if (request != null && request.kind() == Kind.START) {
            throw CotalException.badRequest("kind", "an operator drives resume and answer only");
        }
        // the owner and instance in the holder's grammars; the manager's actor is its gate's principal's
        RunRequestChecks.holder(new Holder(owner, "operator", instanceId, List.of()));
        runs.checks.attempt(request, true);
        refuseIfUnavailable.run();
        managers.authorizeCaller(owner, instanceId); // a candidate of the owner (SPEC §14.4)
        ServingGate gate = managers.gate(instanceId).orElseThrow(() -> new CotalException(ErrorCode.PERMISSION_DENIED,
                "manager instance " + instanceId + " has no gate"));
        String actor = gate.principal().substring(gate.principal().indexOf('.') + 1);
        return runs.attempt(new Holder(owner, actor, instanceId, List.of()), gate, request, operator.auditId());
    }
}
