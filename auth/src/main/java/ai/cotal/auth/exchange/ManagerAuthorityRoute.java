package ai.cotal.auth.exchange;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.BearerClaims;
import ai.cotal.auth.ManagerAuthority;
import ai.cotal.auth.ServingGate;
import ai.cotal.core.CotalException;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.Owner;
import ai.cotal.core.internal.json.ClosedJson;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * {@code POST /manager-service-authority} (both faces) and
 * {@code POST /manager-service-authority/verify-enrollment} (loopback only), SPEC §14.6. The first
 * takes closed JSON {@code {bearer, instanceId, userPublicKey, renew?: {registrationRevision,
 * processEpoch}}}: the bearer proves the manager's principal (verified, then checked as a connect),
 * and the plane issues the standing service credential from the registered surface; the body
 * cannot name a surface. The second takes {@code {owner, instanceId}} and answers the verdict, and
 * for a candidate the registered commands, writing nothing. Typed refusals are the caller's to map
 * ({@link Refusals}).
 */
final class ManagerAuthorityRoute {
    static final String ISSUE = "/manager-service-authority";
    static final String VERIFY = "/manager-service-authority/verify-enrollment";

    /** What a renewal presents. */
    record Renew(Long registrationRevision, Long processEpoch) {
    }

    /** The issue body. */
    record Request(String bearer, String instanceId, String userPublicKey, Renew renew) {
        @Override
        public String toString() {
            return "Request[" + instanceId + "]"; // the bearer is a credential
        }
    }

    /** The verify-enrollment body. */
    record Enrollment(String owner, String instanceId) {
    }

    private ManagerAuthorityRoute() {
    }

    /** Parses {@code body}, checks its bearer and issues (or renews) the manager's standing credential. */
    static Map<String, Object> issue(AuthAuthorityPlane plane, byte[] body) {
        Request request = ClosedJson.read(ClosedJson.cotal(), body, Request.class, "body");
        require(request.bearer(), "bearer");
        require(request.instanceId(), "instanceId");
        require(request.userPublicKey(), "userPublicKey");
        Optional<ManagerAuthority.Renewal> renewing = Optional.empty();
        if (request.renew() != null) {
            require(request.renew().registrationRevision(), "registrationRevision");
            require(request.renew().processEpoch(), "processEpoch");
            renewing = Optional.of(new ManagerAuthority.Renewal(request.renew().registrationRevision(),
                    request.renew().processEpoch()));
        }
        BearerClaims bearer = plane.bearers().verify(request.bearer());
        plane.credentials().authorize(bearer.attempt()); // ledger row, credential row, lifecycle head (SPEC §13.14)
        ManagerAuthority.ServiceAuthority issued = plane.managers().issueServiceAuthority(bearer.principal(),
                InstanceId.of(request.instanceId(), "instanceId"), request.userPublicKey(), renewing);
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("jwt", issued.jwt());
        answer.put("instanceId", issued.instanceId());
        answer.put("registrationRevision", issued.registrationRevision());
        answer.put("processEpoch", issued.processEpoch());
        answer.put("commands", issued.commands());
        answer.put("exp", issued.expiresAt());
        return answer;
    }

    /** The manager's enrollment as the plane would check it before issuing; writes nothing. */
    static Map<String, Object> verifyEnrollment(AuthAuthorityPlane plane, byte[] body) {
        Enrollment request = ClosedJson.read(ClosedJson.cotal(), body, Enrollment.class, "body");
        require(request.owner(), "owner");
        require(request.instanceId(), "instanceId");
        Owner owner = Owner.of(request.owner(), "owner");
        InstanceId instanceId = InstanceId.of(request.instanceId(), "instanceId");
        ManagerAuthority managers = plane.managers();
        ManagerAuthority.Verdict verdict = managers.verdict(owner, instanceId);
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("owner", request.owner());
        answer.put("instanceId", request.instanceId());
        answer.put("verdict", verdict.wire());
        if (verdict == ManagerAuthority.Verdict.CANDIDATE) {
            ServingGate gate = managers.gate(instanceId).orElseThrow(() -> new CotalException(
                    ai.cotal.core.ErrorCode.DATA_LOSS, "the manager gate of " + request.instanceId()
                    + " vanished while it was read"));
            ManagerAuthority.ManagerCluster cluster = managers.registeredCluster(owner, instanceId,
                    gate.registrationRevision());
            answer.put("registrationRevision", gate.registrationRevision());
            answer.put("processEpoch", gate.processEpoch());
            answer.put("commands", cluster.commands());
        }
        return answer;
    }

    private static void require(Object value, String field) {
        if (value == null) {
            throw CotalException.badRequest(field, "required");
        }
    }
}
