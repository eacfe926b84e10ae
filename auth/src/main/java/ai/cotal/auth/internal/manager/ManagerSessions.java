package ai.cotal.auth.internal.manager;

import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.ManagerAuthority;
import ai.cotal.auth.ServingGate;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.util.Optional;

/**
 * {@code verifySession} (SPEC §14.5): a {@code session-caller} is admitted only on a session its
 * serving manager wrote under its own instance, active and unexpired, granted to the connecting
 * principal, while that manager is a candidate, and only for commands its registered cluster
 * declares. Leader reads only; writes nothing. Thread-safe.
 */
final class ManagerSessions {
    private final ManagerGates gates;
    private final ManagerGates.Wiring w;
    private final ContractArtifacts artifacts;

    ManagerSessions(ManagerGates gates, ManagerGates.Wiring wiring, ContractArtifacts artifacts) {
        this.gates = gates;
        this.w = wiring;
        this.artifacts = artifacts;
    }

    ManagerAuthority.Session verify(String callerOwner, String callerActor, String grant) {
        ManagerGates.checkPrincipal(callerOwner, callerActor);
        if (grant == null || !BearerRequest.SessionCaller.GRANT.matcher(grant).matches()) {
            throw CotalException.badRequest("sessionGrant", "must be " + BearerRequest.SessionCaller.GRANT_RULE);
        }
        int dot = grant.indexOf('.');
        String instanceId = grant.substring(0, dot);
        String sessionId = grant.substring(dot + 1);
        w.refuseIfUnavailable().run();
        ServingDocuments.Session session = w.records().session(instanceId, sessionId).orElseThrow(() -> denied(
                "no session " + sessionId + " at manager instance " + instanceId));
        if (session.state().equals("revoked")) {
            throw denied("session " + sessionId + " was revoked");
        }
        if (session.expiresAt() <= w.clock().instant().getEpochSecond()) {
            throw denied("session " + sessionId + " expired");
        }
        if (!session.caller().equals(callerOwner + "." + callerActor)) {
            throw denied("session " + sessionId + " was granted to another principal");
        }
        Optional<ServingGate> gate = w.records().gate(ManagerGates.ENDPOINT, instanceId);
        ManagerAuthority.Verdict verdict = gates.verdict(session.owner(), instanceId, gate);
        if (verdict != ManagerAuthority.Verdict.CANDIDATE) {
            throw denied("manager instance " + instanceId + " of " + session.owner() + " is not a candidate ("
                    + verdict.wire() + ")");
        }
        ManagerAuthority.ManagerCluster cluster = artifacts.registeredManagerCluster(session.owner(), instanceId,
                gate.orElseThrow().registrationRevision());
        for (String command : session.commands()) {
            if (!cluster.commands().contains(command)) {
                throw denied("session " + sessionId + " grants " + command
                        + ", which the registered manager cluster does not declare");
            }
        }
        return new ManagerAuthority.Session(sessionId, instanceId, session.owner(), session.caller(), session.commands(),
                session.expiresAt());
    }

    private static CotalException denied(String reason) {
        return new CotalException(ErrorCode.PERMISSION_DENIED, "session-caller: " + reason);
    }
}
