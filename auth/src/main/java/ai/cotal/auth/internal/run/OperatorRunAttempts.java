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
import ai.cotal.core.id.Actor;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
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

    Attempt issue(Granter.Operator operator, Owner owner, InstanceId instance, AttemptRequest request) {
        if (operator == null) {
            throw CotalException.badRequest("granter", "required: the operator's audit id");
        }
        if (request != null && request.kind() == Kind.START) {
            throw CotalException.badRequest("kind", "an operator drives resume and answer only");
        }
        if (owner == null || instance == null) {
            throw CotalException.badRequest(owner == null ? "owner" : "instanceId", "is required");
        }
        runs.checks.attempt(request, true);
        refuseIfUnavailable.run();
        managers.authorizeCaller(owner, instance); // a candidate of the owner (SPEC §14.4)
        ServingGate gate = managers.gate(instance).orElseThrow(() -> new CotalException(ErrorCode.PERMISSION_DENIED,
                "manager instance " + instance + " has no gate"));
        // the manager's actor is its gate's principal's
        Actor actor = Actor.of(gate.principal().substring(gate.principal().indexOf('.') + 1), "gate.principal");
        return runs.attempt(new Holder(new Principal(owner, actor), instance, List.of()), gate, request,
                operator.auditId());
    }
}
