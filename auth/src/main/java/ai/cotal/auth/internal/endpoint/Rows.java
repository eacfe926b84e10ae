package ai.cotal.auth.internal.endpoint;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.core.internal.keys.NKeyCodec;
import ai.cotal.servicehost.EndpointName;
import ai.cotal.servicehost.Views.AssignmentState;
import ai.cotal.servicehost.Views.GateState;
import ai.cotal.servicehost.Views.GrantState;
import ai.cotal.servicehost.Views.OperationState;
import ai.cotal.servicehost.Views.ProposalState;
import java.security.SecureRandom;
import java.util.List;
import java.util.Locale;

/**
 * The service-endpoint host's records and keys in {@code cotal_auth_<token>} (SPEC §13.1). Every
 * record is closed camelCase JSON with {@code v: 1}, its state an enum (an unknown state does not
 * bind); a stored row that does not parse is {@code data-loss}, never a caller error.
 */
final class Rows {
    static final int V = 1;
    /** At most this many request ids are held (admitted and not yet released) per instance. */
    static final int CAPACITY = 64;
    private static final SecureRandom RANDOM = new SecureRandom();

    private Rows() {
    }

    /**
     * The key token of an endpoint name or a bound name: {@code .} becomes {@code _}
     * ({@link EndpointName}), so every key keeps its fixed number of tokens.
     */
    static String token(String name) {
        return EndpointName.token(name);
    }

    /** The prefix of {@code endpoint}'s instance's caller grants, {@code svc.grant.<token>.<instanceId>.}. */
    static String grants(String endpoint, String instanceId) {
        return "svc.grant." + token(endpoint) + "." + instanceId + ".";
    }

    static String req(String requestId) {
        return "svc.req." + requestId;
    }

    static String op(String operationId) {
        return "svc.op." + operationId;
    }

    static String cap(String endpoint, String instanceId) {
        return "svc.cap." + token(endpoint) + "." + instanceId;
    }

    static String prop(String operationId) {
        return "svc.prop." + operationId;
    }

    static String gate(String endpoint, String instanceId) {
        return "epgate." + token(endpoint) + "." + instanceId;
    }

    static String appr(String endpoint, String instanceId) {
        return "svc.appr." + token(endpoint) + "." + instanceId;
    }

    static String asg(String owner, String endpoint, String instanceId) {
        return "svc.asg." + owner + "." + token(endpoint) + "." + instanceId;
    }

    static String name(String name) {
        return "svc.name." + token(name);
    }

    static String grant(String endpoint, String instanceId, String grantId) {
        return grants(endpoint, instanceId) + grantId;
    }

    /** {@code svc.grantee.<owner>.<actor>.<endpoint>.<instanceId>}: the grantee's index row on one instance. */
    static String grantee(String owner, String actor, String endpoint, String instanceId) {
        return granteePrefix(owner, actor) + endpoint + "." + instanceId;
    }

    /** {@code svc.grantee.<owner>.<actor>.}: every index row of one grantee (the callout lists it at connect). */
    static String granteePrefix(String owner, String actor) {
        return "svc.grantee." + owner + "." + actor + ".";
    }

    /** A fresh operation id (also a grant id or an assignment uid): 128 random bits, 26 base32 characters. */
    static String newId() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return NKeyCodec.base32(bytes).toLowerCase(Locale.ROOT);
    }

    /**
     * {@code svc.req.<requestId>}: binds a request id to its operation, create-only. {@code auditId}
     * (on this and every record an operator operation writes) is the operator's audit id; null for
     * an owner.
     */
    record Binding(int v, String requestId, String kind, String requestDigest, String operationId, String granter,
            String auditId) implements Versioned {
        @Override
        public boolean complete() {
            return requestId != null && kind != null && requestDigest != null && operationId != null && granter != null;
        }
    }

    /** {@code svc.op.<operationId>}: {@code state} is {@code open}, then {@code completed|refused|granted}. */
    record Operation(int v, String kind, String requestId, String endpoint, String instanceId, OperationState state,
            List<String> debt, String reason, String createdAt, String updatedAt, String auditId) implements Versioned {
        boolean terminal() {
            return state != OperationState.OPEN;
        }

        @Override
        public boolean complete() {
            return kind != null && requestId != null && state != null && debt != null && createdAt != null;
        }

        Operation settle(OperationState to, List<String> owed, String why, String now) {
            return new Operation(V, kind, requestId, endpoint, instanceId, to, owed, why, createdAt, now, auditId);
        }
    }

    /** {@code svc.cap.<endpoint>.<instanceId>}: the request ids in flight, admitted and not yet released. */
    record Capacity(int v, List<String> held) implements Versioned {
        @Override
        public boolean complete() {
            return held != null;
        }
    }

    /** {@code svc.prop.<operationId>}: a register operation's proposal. */
    record Proposal(int v, String endpoint, String instanceId, String owner, String contractDigest,
            List<String> callerCeiling, ProposalState state, String decidedBy) implements Versioned {
        @Override
        public boolean complete() {
            return endpoint != null && instanceId != null && owner != null && contractDigest != null
                    && callerCeiling != null && state != null;
        }

        Proposal to(ProposalState state, String decidedBy) {
            return new Proposal(V, endpoint, instanceId, owner, contractDigest, callerCeiling, state, decidedBy);
        }
    }

    /**
     * {@code epgate.<endpoint>.<instanceId>}: {@code frozen -> open -> retired} ({@code frozen -> retired}
     * on refusal); {@code auditId} names the operator whose revoke retired it.
     */
    record Gate(int v, GateState state, long generation, long registrationRevision, String operationId, String assignment,
            String auditId) implements Versioned {
        @Override
        public boolean complete() {
            return state != null && operationId != null;
        }

        Gate to(GateState state, String assignment, String auditId) {
            return new Gate(V, state, generation + 1, registrationRevision, operationId, assignment, auditId);
        }
    }

    /** {@code svc.appr.<endpoint>.<instanceId>}: create-only; names the assignment uid every helper uses. */
    record Approval(int v, String approvalDigest, List<String> callerCeiling, String proposal, String assignmentUid,
            String approvedBy) implements Versioned {
        @Override
        public boolean complete() {
            return approvalDigest != null && callerCeiling != null && assignmentUid != null && approvedBy != null;
        }
    }

    /** {@code svc.asg.<owner>.<endpoint>.<instanceId>}: {@code active -> fenced}; {@code auditId}: the fencing operator. */
    record Assignment(int v, String uid, AssignmentState state, String auditId) implements Versioned {
        @Override
        public boolean complete() {
            return uid != null && state != null;
        }
    }

    /** {@code svc.name.<name>}: create-only, never updated, transferred or released. */
    record NameBinding(int v, String endpoint, String owner, String claimReference, String requestDigest, String auditId)
            implements Versioned {
        @Override
        public boolean complete() {
            return endpoint != null && owner != null && claimReference != null && requestDigest != null;
        }
    }

    /** {@code svc.grant.<endpoint>.<instanceId>.<grantId>}: {@code active -> revoked}. */
    record CallerGrant(int v, String owner, String actor, List<String> capabilities, List<String> parentRefs,
            GrantState state) implements Versioned {
        @Override
        public boolean complete() {
            return owner != null && actor != null && capabilities != null && parentRefs != null && state != null;
        }
    }

    /**
     * {@code svc.grantee.<owner>.<actor>.<endpoint>.<instanceId>}: the grant ids on the instance that
     * may be active for the grantee, a hint for the callout (the grant rows decide). CAS per change.
     */
    record GranteeIndex(int v, String endpoint, String instanceId, List<String> grants) implements Versioned {
        @Override
        public boolean complete() {
            return endpoint != null && instanceId != null && grants != null;
        }
    }

    /** Every record carries its schema version. */
    interface Versioned {
        int v();

        /** True when every required field is present (closed parsing alone lets a field be missing). */
        boolean complete();
    }

    static byte[] write(Versioned row) {
        return ClosedJson.write(ClosedJson.cotal(), row);
    }

    static <T extends Versioned> T read(byte[] data, Class<T> type, String key) {
        T row;
        try {
            row = ClosedJson.read(ClosedJson.cotal(), data, type, key);
        } catch (CotalException e) {
            throw new CotalException(ErrorCode.DATA_LOSS, "the service-endpoint record " + key + " is corrupt ("
                    + e.getMessage() + ")", e);
        }
        if (row.v() != V || !row.complete()) {
            throw new CotalException(ErrorCode.DATA_LOSS, "the service-endpoint record " + key + " has an unknown version or a missing field");
        }
        return row;
    }
}
