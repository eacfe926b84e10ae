package ai.cotal.servicehost;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.List;

/**
 * A service-endpoint host request (SPEC §13.1). Each kind is a record validated at construction:
 * a request that exists is well-formed. The wire form is closed JSON with {@code kind} first
 * ({@link HostJson}).
 */
public sealed interface HostRequest {
    /** The wire {@code kind}. */
    String kind();

    /** True for the kinds that write (they carry a {@code requestId}). */
    default boolean mutating() {
        return this instanceof Mutating;
    }

    /** The kinds that write and bind a request id. */
    sealed interface Mutating extends HostRequest {
        String requestId();
    }

    /** Admission of one endpoint instance (service authority route only). */
    record Register(String requestId, String endpoint, String instanceId, String contractDigest, List<String> callerCeiling)
            implements Mutating {
        public Register {
            Grammar.check(Grammar.REQUEST_ID, requestId, "requestId");
            Grammar.name(endpoint, "endpoint");
            Grammar.check(Grammar.INSTANCE_ID, instanceId, "instanceId");
            Grammar.check(Grammar.DIGEST, contractDigest, "contractDigest");
            callerCeiling = Grammar.capabilities(callerCeiling, "callerCeiling");
        }

        @Override
        public String kind() {
            return "register";
        }
    }

    /** Approve or refuse a pending proposal. */
    record Decide(String requestId, String endpoint, String instanceId, Decision decision) implements Mutating {
        public Decide {
            Grammar.check(Grammar.REQUEST_ID, requestId, "requestId");
            Grammar.name(endpoint, "endpoint");
            Grammar.check(Grammar.INSTANCE_ID, instanceId, "instanceId");
            if (decision == null) {
                throw ContractException.badRequest("decision", "must be approve or refuse");
            }
        }

        @Override
        public String kind() {
            return "decide";
        }
    }

    /** A decision on a proposal. */
    enum Decision {
        APPROVE("approve"), REFUSE("refuse");

        private final String wire;

        Decision(String wire) {
            this.wire = wire;
        }

        /** The name on the wire. */
        @JsonValue
        public String wire() {
            return wire;
        }
    }

    /** Revoke an instance's assignment. */
    record Revoke(String requestId, String endpoint, String instanceId) implements Mutating {
        public Revoke {
            Grammar.check(Grammar.REQUEST_ID, requestId, "requestId");
            Grammar.name(endpoint, "endpoint");
            Grammar.check(Grammar.INSTANCE_ID, instanceId, "instanceId");
        }

        @Override
        public String kind() {
            return "revoke";
        }
    }

    /**
     * Bind a name to an endpoint of one owner, once ({@code expectedRevision} must be 0 to bind).
     * The host checks no domain control: verify {@code claimReference} before binding.
     */
    record NameBind(String requestId, String name, String endpoint, String owner, String claimReference,
            long expectedRevision) implements Mutating {
        public NameBind {
            Grammar.check(Grammar.REQUEST_ID, requestId, "requestId");
            Grammar.name(name, "name");
            Grammar.name(endpoint, "endpoint");
            Grammar.check(Grammar.OWNER, owner, "owner");
            Grammar.check(Grammar.CLAIM, claimReference, "claimReference");
            Grammar.revision(expectedRevision, "expectedRevision");
        }

        @Override
        public String kind() {
            return "name-bind";
        }
    }

    /** The principal a caller grant names. */
    record Grantee(String owner, String actor) {
        public Grantee {
            Grammar.check(Grammar.OWNER, owner, "grantee.owner");
            Grammar.check(Grammar.ACTOR, actor, "grantee.actor");
        }
    }

    /** Grant caller rights on an approved instance, within the approval's caller ceiling. */
    record CallerGrant(String requestId, String endpoint, String instanceId, Grantee grantee, List<String> capabilities)
            implements Mutating {
        public CallerGrant {
            Grammar.check(Grammar.REQUEST_ID, requestId, "requestId");
            Grammar.name(endpoint, "endpoint");
            Grammar.check(Grammar.INSTANCE_ID, instanceId, "instanceId");
            if (grantee == null) {
                throw ContractException.badRequest("grantee", "is required");
            }
            capabilities = Grammar.capabilities(capabilities, "capabilities");
            if (capabilities.isEmpty()) {
                throw ContractException.badRequest("capabilities", "grant at least one capability");
            }
        }

        @Override
        public String kind() {
            return "caller-grant";
        }
    }

    /** Revoke one caller grant. */
    record CallerRevoke(String requestId, String endpoint, String instanceId, String grantId) implements Mutating {
        public CallerRevoke {
            Grammar.check(Grammar.REQUEST_ID, requestId, "requestId");
            Grammar.name(endpoint, "endpoint");
            Grammar.check(Grammar.INSTANCE_ID, instanceId, "instanceId");
            Grammar.check(Grammar.GRANT_ID, grantId, "grantId");
        }

        @Override
        public String kind() {
            return "caller-revoke";
        }
    }

    /** Read one caller grant. */
    record CallerRead(String endpoint, String instanceId, String grantId) implements HostRequest {
        public CallerRead {
            Grammar.name(endpoint, "endpoint");
            Grammar.check(Grammar.INSTANCE_ID, instanceId, "instanceId");
            Grammar.check(Grammar.GRANT_ID, grantId, "grantId");
        }

        @Override
        public String kind() {
            return "caller-read";
        }
    }

    /** List an instance's caller grants. */
    record CallerList(String endpoint, String instanceId, String cursor, Integer limit) implements HostRequest {
        public CallerList {
            Grammar.name(endpoint, "endpoint");
            Grammar.check(Grammar.INSTANCE_ID, instanceId, "instanceId");
            Grammar.optional(Grammar.CURSOR, cursor, "cursor");
            Grammar.limit(limit);
        }

        @Override
        public String kind() {
            return "caller-list";
        }
    }

    /** The current view of one instance of the proved owner. */
    record InstanceRead(String endpoint, String instanceId) implements HostRequest {
        public InstanceRead {
            Grammar.name(endpoint, "endpoint");
            Grammar.check(Grammar.INSTANCE_ID, instanceId, "instanceId");
        }

        @Override
        public String kind() {
            return "instance-read";
        }
    }

    /** The proved owner's instances, a page at a time. */
    record InstanceList(String cursor, Integer limit) implements HostRequest {
        public InstanceList {
            Grammar.optional(Grammar.CURSOR, cursor, "cursor");
            Grammar.limit(limit);
        }

        @Override
        public String kind() {
            return "instance-list";
        }
    }

    /** The proposal of a register operation. */
    record ProposalRead(String operationId) implements HostRequest {
        public ProposalRead {
            Grammar.check(Grammar.OPERATION_ID, operationId, "operationId");
        }

        @Override
        public String kind() {
            return "proposal-read";
        }
    }

    /** The authoritative view of an operation, its debt included. */
    record OperationRead(String operationId) implements HostRequest {
        public OperationRead {
            Grammar.check(Grammar.OPERATION_ID, operationId, "operationId");
        }

        @Override
        public String kind() {
            return "operation-read";
        }
    }

    /** A name binding. */
    record NameRead(String name) implements HostRequest {
        public NameRead {
            Grammar.name(name, "name");
        }

        @Override
        public String kind() {
            return "name-read";
        }
    }
}
