package ai.cotal.auth.exchange;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.BearerClaims;
import ai.cotal.auth.Granter;
import ai.cotal.auth.ManagerRuns;
import ai.cotal.core.CotalException;
import ai.cotal.core.id.Actor;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.RunId;
import ai.cotal.core.internal.json.ClosedJson;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * {@code POST /manager-service-authority/run-admission} and {@code .../run-attempt} (SPEC §14.7),
 * on both faces. The body is closed JSON {@code {bearer, request}}: the route verifies the bearer,
 * runs the connect check on it (a current ledger row at its lifecycle, its scope in the row, its
 * credential row live) and makes the holder {bearer owner, bearer actor, request.instanceId, bearer
 * scope}; the plane then checks the holder (supervise, a candidate instance served by that
 * principal). {@code .../run-operator-attempt}, on the loopback face only: the capability the door
 * demanded is the operator's credential; the body is closed JSON {@code {auditId, owner,
 * instanceId, runId, attemptId, kind, driver, checkpoint, answerId?, served?}}. The door and the
 * refusal window are the caller's ({@link ExchangeRoutes}).
 */
final class RunRoute {
    static final String ADMISSION = "/manager-service-authority/run-admission";
    static final String ATTEMPT = "/manager-service-authority/run-attempt";
    static final String OPERATOR = "/manager-service-authority/run-operator-attempt";

    record AdmissionFields(String instanceId, String runId, String actor, String lifecycleUid) {
    }

    record AdmissionBody(String bearer, AdmissionFields request) {
    }

    record AttemptFields(String instanceId, String runId, String attemptId, String kind, String driver, String checkpoint,
            String answerId, String served) {
    }

    record AttemptBody(String bearer, AttemptFields request) {
    }

    record OperatorBody(String auditId, String owner, String instanceId, String runId, String attemptId, String kind,
            String driver, String checkpoint, String answerId, String served) {
    }

    private RunRoute() {
    }

    /** Parses {@code body} for {@code path}, authenticates the holder and answers the operation's JSON. */
    static Map<String, Object> serve(AuthAuthorityPlane plane, String path, byte[] body) {
        if (path.equals(ADMISSION)) {
            AdmissionBody parsed = ClosedJson.read(ClosedJson.cotal(), body, AdmissionBody.class, "body");
            AdmissionFields r = require(parsed.request(), "request");
            ManagerRuns.Holder holder = holder(plane, parsed.bearer(), r.instanceId());
            ManagerRuns.Admission a = plane.managerRuns().admit(holder, new ManagerRuns.AdmissionRequest(
                    RunId.of(require(r.runId(), "runId"), "runId"), Actor.of(require(r.actor(), "actor"), "actor"),
                    LifecycleUid.of(require(r.lifecycleUid(), "lifecycleUid"), "lifecycleUid")));
            Map<String, Object> answer = new LinkedHashMap<>();
            answer.put("runId", a.runId().value());
            answer.put("owner", a.owner().value());
            answer.put("instanceId", a.instanceId().value());
            answer.put("actor", a.actor().value());
            answer.put("lifecycleUid", a.lifecycleUid().value());
            answer.put("admittedAt", a.admittedAt());
            answer.put("replayed", a.replayed());
            return answer;
        }
        AttemptBody parsed = ClosedJson.read(ClosedJson.cotal(), body, AttemptBody.class, "body");
        AttemptFields r = require(parsed.request(), "request");
        ManagerRuns.Kind kind = kind(r.kind());
        ManagerRuns.Holder holder = holder(plane, parsed.bearer(), r.instanceId());
        return answer(plane.managerRuns().issueAttempt(holder, new ManagerRuns.AttemptRequest(
                RunId.of(require(r.runId(), "runId"), "runId"), RunId.of(require(r.attemptId(), "attemptId"), "attemptId"), kind, require(r.driver(), "driver"),
                Optional.ofNullable(r.checkpoint()), Optional.ofNullable(r.answerId()), Optional.ofNullable(r.served()))));
    }

    /** Parses the operator's {@code body} and answers the attempt it drives (SPEC §14.7, operator attempts). */
    static Map<String, Object> operator(AuthAuthorityPlane plane, byte[] body) {
        OperatorBody r = ClosedJson.read(ClosedJson.cotal(), body, OperatorBody.class, "body");
        ManagerRuns.Kind kind = kind(r.kind());
        return answer(plane.managerRuns().issueOperatorAttempt(new Granter.Operator(require(r.auditId(), "auditId")),
                Owner.of(require(r.owner(), "owner"), "owner"), InstanceId.of(require(r.instanceId(), "instanceId"),
                        "instanceId"), new ManagerRuns.AttemptRequest(RunId.of(require(r.runId(), "runId"), "runId"),
                        RunId.of(require(r.attemptId(), "attemptId"), "attemptId"), kind,
                        require(r.driver(), "driver"), Optional.ofNullable(r.checkpoint()),
                        Optional.ofNullable(r.answerId()), Optional.ofNullable(r.served()))));
    }

    private static ManagerRuns.Kind kind(String wire) {
        return ManagerRuns.Kind.of(require(wire, "kind")).orElseThrow(() ->
                CotalException.badRequest("kind", "must be start, resume or answer"));
    }

    private static Map<String, Object> answer(ManagerRuns.Attempt a) {
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("runId", a.runId().value());
        answer.put("attemptId", a.attemptId().value());
        answer.put("kind", a.kind().wire());
        answer.put("jwt", a.jwt());
        answer.put("expiresAt", a.expiresAt());
        answer.put("replayed", a.replayed());
        return answer;
    }

    private static ManagerRuns.Holder holder(AuthAuthorityPlane plane, String bearer, String instanceId) {
        BearerClaims claims = plane.bearers().verify(require(bearer, "bearer"));
        plane.credentials().authorize(claims.attempt());
        return new ManagerRuns.Holder(claims.principal(), InstanceId.of(require(instanceId, "instanceId"), "instanceId"),
                claims.scope());
    }

    private static <T> T require(T value, String field) {
        if (value == null) {
            throw CotalException.badRequest(field, "required");
        }
        return value;
    }
}
