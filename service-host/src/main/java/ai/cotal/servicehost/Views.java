package ai.cotal.servicehost;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/** The read views of the service-endpoint host (SPEC §13.1). Immutable, validated at construction. */
public final class Views {
    private Views() {
    }

    /** An endpoint gate as read. */
    public record Gate(String state, long revision) {
        public Gate {
            if (!List.of("frozen", "open", "retired").contains(state)) {
                throw ContractException.badRequest("gate.state", "must be frozen, open or retired");
            }
            Grammar.revision(revision, "gate.revision");
        }
    }

    /** {@code ServiceInstanceView}: the current state of one instance. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Instance(String endpoint, String instanceId, String owner, String registrationState,
            String approvalDigest, Gate gate, String assignment, String name) {
        public Instance {
            Grammar.check(Grammar.LABEL, endpoint, "endpoint");
            Grammar.check(Grammar.INSTANCE_ID, instanceId, "instanceId");
            Grammar.check(Grammar.OWNER, owner, "owner");
            if (!List.of("pending", "approved", "refused", "revoked").contains(registrationState)) {
                throw ContractException.badRequest("registrationState", "must be pending, approved, refused or revoked");
            }
            Grammar.optional(Grammar.DIGEST, approvalDigest, "approvalDigest");
            if (assignment != null && !List.of("active", "fenced").contains(assignment)) {
                throw ContractException.badRequest("assignment", "must be active or fenced");
            }
            Grammar.optional(Grammar.LABEL, name, "name");
        }
    }

    /** A register operation's proposal. */
    public record Proposal(String operationId, String endpoint, String instanceId, String owner, String contractDigest,
            List<String> callerCeiling, String state) {
        public Proposal {
            Grammar.check(Grammar.OPERATION_ID, operationId, "proposal.operationId");
            Grammar.check(Grammar.LABEL, endpoint, "proposal.endpoint");
            Grammar.check(Grammar.INSTANCE_ID, instanceId, "proposal.instanceId");
            Grammar.check(Grammar.OWNER, owner, "proposal.owner");
            Grammar.check(Grammar.DIGEST, contractDigest, "proposal.contractDigest");
            callerCeiling = Grammar.capabilities(callerCeiling, "proposal.callerCeiling");
            if (!List.of("pending", "approved", "refused").contains(state)) {
                throw ContractException.badRequest("proposal.state", "must be pending, approved or refused");
            }
        }
    }

    /** An operation, with its authoritative debt. */
    public record Operation(String operationId, String kind, String requestId, String endpoint, String instanceId,
            String state, List<String> debt) {
        public Operation {
            Grammar.check(Grammar.OPERATION_ID, operationId, "operation.operationId");
            Grammar.check(Grammar.REQUEST_ID, requestId, "operation.requestId");
            if (kind == null || kind.isEmpty() || state == null || state.isEmpty()) {
                throw ContractException.badRequest("operation", "kind and state are required");
            }
            Grammar.optional(Grammar.LABEL, endpoint, "operation.endpoint");
            Grammar.optional(Grammar.INSTANCE_ID, instanceId, "operation.instanceId");
            debt = debt == null ? List.of() : List.copyOf(debt);
        }
    }

    /** A name binding. */
    public record Name(String name, String endpoint, String owner, String claimReference) {
        public Name {
            Grammar.check(Grammar.LABEL, name, "name.name");
            Grammar.check(Grammar.LABEL, endpoint, "name.endpoint");
            Grammar.check(Grammar.OWNER, owner, "name.owner");
            Grammar.check(Grammar.CLAIM, claimReference, "name.claimReference");
        }
    }

    /** A caller grant. */
    public record Grant(String grantId, String endpoint, String instanceId, HostRequest.Grantee grantee,
            List<String> capabilities, String state) {
        public Grant {
            Grammar.check(Grammar.GRANT_ID, grantId, "grant.grantId");
            Grammar.check(Grammar.LABEL, endpoint, "grant.endpoint");
            Grammar.check(Grammar.INSTANCE_ID, instanceId, "grant.instanceId");
            if (grantee == null) {
                throw ContractException.badRequest("grant.grantee", "is required");
            }
            capabilities = Grammar.capabilities(capabilities, "grant.capabilities");
            if (!List.of("active", "revoked").contains(state)) {
                throw ContractException.badRequest("grant.state", "must be active or revoked");
            }
        }
    }
}
