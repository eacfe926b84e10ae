package ai.cotal.servicehost;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.List;

/**
 * The read views of the service-endpoint host (SPEC §13.1) and the states they show, each an enum
 * carrying its wire name (an unknown name is refused when a view is parsed). Immutable, validated
 * at construction.
 */
public final class Views {
    private Views() {
    }

    /** An endpoint gate's state: {@code frozen -> open -> retired} ({@code frozen -> retired} on refusal). */
    public enum GateState {
        FROZEN("frozen"), OPEN("open"), RETIRED("retired");

        private final String wire;

        GateState(String wire) {
            this.wire = wire;
        }

        /** The name on the wire. */
        @JsonValue
        public String wire() {
            return wire;
        }
    }

    /** A register operation's proposal: {@code pending}, then decided. */
    public enum ProposalState {
        PENDING("pending"), APPROVED("approved"), REFUSED("refused");

        private final String wire;

        ProposalState(String wire) {
            this.wire = wire;
        }

        /** The name on the wire. */
        @JsonValue
        public String wire() {
            return wire;
        }
    }

    /** An instance's registration as a view shows it: its proposal's state, or {@code revoked} once fenced. */
    public enum RegistrationState {
        PENDING("pending"), APPROVED("approved"), REFUSED("refused"), REVOKED("revoked");

        private final String wire;

        RegistrationState(String wire) {
            this.wire = wire;
        }

        /** The name on the wire. */
        @JsonValue
        public String wire() {
            return wire;
        }
    }

    /** An approved instance's assignment: {@code active -> fenced}. */
    public enum AssignmentState {
        ACTIVE("active"), FENCED("fenced");

        private final String wire;

        AssignmentState(String wire) {
            this.wire = wire;
        }

        /** The name on the wire. */
        @JsonValue
        public String wire() {
            return wire;
        }
    }

    /** An operation: {@code open}, then terminal ({@code completed}, {@code refused} or {@code granted}). */
    public enum OperationState {
        OPEN("open"), COMPLETED("completed"), REFUSED("refused"), GRANTED("granted");

        private final String wire;

        OperationState(String wire) {
            this.wire = wire;
        }

        /** The name on the wire. */
        @JsonValue
        public String wire() {
            return wire;
        }
    }

    /** A caller grant: {@code active -> revoked}. */
    public enum GrantState {
        ACTIVE("active"), REVOKED("revoked");

        private final String wire;

        GrantState(String wire) {
            this.wire = wire;
        }

        /** The name on the wire. */
        @JsonValue
        public String wire() {
            return wire;
        }
    }

    /** An endpoint gate as read. */
    public record Gate(GateState state, long revision) {
        public Gate {
            if (state == null) {
                throw ContractException.badRequest("gate.state", "must be frozen, open or retired");
            }
            Grammar.revision(revision, "gate.revision");
        }
    }

    /** {@code ServiceInstanceView}: the current state of one instance. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Instance(String endpoint, String instanceId, String owner, RegistrationState registrationState,
            String approvalDigest, Gate gate, AssignmentState assignment, String name) {
        public Instance {
            Grammar.name(endpoint, "endpoint");
            Grammar.check(Grammar.INSTANCE_ID, instanceId, "instanceId");
            Grammar.check(Grammar.OWNER, owner, "owner");
            if (registrationState == null) {
                throw ContractException.badRequest("registrationState", "must be pending, approved, refused or revoked");
            }
            Grammar.optional(Grammar.DIGEST, approvalDigest, "approvalDigest");
            Grammar.optionalName(name, "name");
        }
    }

    /** A register operation's proposal. */
    public record Proposal(String operationId, String endpoint, String instanceId, String owner, String contractDigest,
            List<String> callerCeiling, ProposalState state) {
        public Proposal {
            Grammar.check(Grammar.OPERATION_ID, operationId, "proposal.operationId");
            Grammar.name(endpoint, "proposal.endpoint");
            Grammar.check(Grammar.INSTANCE_ID, instanceId, "proposal.instanceId");
            Grammar.check(Grammar.OWNER, owner, "proposal.owner");
            Grammar.check(Grammar.DIGEST, contractDigest, "proposal.contractDigest");
            callerCeiling = Grammar.capabilities(callerCeiling, "proposal.callerCeiling");
            if (state == null) {
                throw ContractException.badRequest("proposal.state", "must be pending, approved or refused");
            }
        }
    }

    /**
     * An operation, with its authoritative debt; {@code auditId} is the operator's audit id when the
     * operator asked (the proved subject on the stock route), else absent.
     */
    public record Operation(String operationId, String kind, String requestId, String endpoint, String instanceId,
            OperationState state, List<String> debt, String auditId) {
        public Operation {
            Grammar.check(Grammar.OPERATION_ID, operationId, "operation.operationId");
            Grammar.check(Grammar.REQUEST_ID, requestId, "operation.requestId");
            if (kind == null || kind.isEmpty() || state == null) {
                throw ContractException.badRequest("operation", "kind and state are required");
            }
            Grammar.optionalName(endpoint, "operation.endpoint");
            Grammar.optional(Grammar.INSTANCE_ID, instanceId, "operation.instanceId");
            debt = debt == null ? List.of() : List.copyOf(debt);
            Grammar.optional(Grammar.AUDIT_ID, auditId, "operation.auditId");
        }
    }

    /** A name binding. */
    public record Name(String name, String endpoint, String owner, String claimReference) {
        public Name {
            Grammar.name(name, "name.name");
            Grammar.name(endpoint, "name.endpoint");
            Grammar.check(Grammar.OWNER, owner, "name.owner");
            Grammar.check(Grammar.CLAIM, claimReference, "name.claimReference");
        }
    }

    /** A caller grant. */
    public record Grant(String grantId, String endpoint, String instanceId, HostRequest.Grantee grantee,
            List<String> capabilities, GrantState state) {
        public Grant {
            Grammar.check(Grammar.GRANT_ID, grantId, "grant.grantId");
            Grammar.name(endpoint, "grant.endpoint");
            Grammar.check(Grammar.INSTANCE_ID, instanceId, "grant.instanceId");
            if (grantee == null) {
                throw ContractException.badRequest("grant.grantee", "is required");
            }
            capabilities = Grammar.capabilities(capabilities, "grant.capabilities");
            if (state == null) {
                throw ContractException.badRequest("grant.state", "must be active or revoked");
            }
        }
    }
}
