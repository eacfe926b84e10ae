package ai.cotal.servicehost;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.List;

/**
 * A service-endpoint host request (SPEC §13.1). Each kind is a record validated at construction:
 * a request that exists is well-formed, and a malformed field is a {@link ContractException}
 * {@code bad-request} whose message starts with the field. The wire form is closed JSON with
 * {@code kind} first ({@link HostJson}), the record's components in order.
 *
 * <p>Shared forms: an {@code endpoint} (and a bound {@code name}) is an {@link EndpointName}
 * ({@code com.example.weather}); an {@code instanceId} is 26 to 32 of {@code [a-z0-9]}, chosen by
 * the daemon that registers the instance; an {@code operationId} or {@code grantId} is 26 of
 * {@code [a-z2-7]}, minted by the host and named in a write's result; an {@code owner} is
 * {@code u_} and 26 of {@code [a-z2-7]}; a capability is {@code [a-z][a-z0-9-]{0,31}}, never
 * {@code journal}, {@code journal-*}, {@code any} or {@code ledger}. Immutable and thread-safe.
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
        /**
         * The sender's id of this write: 16 to 64 of {@code [A-Za-z0-9_-]}, minted unpredictably
         * ({@link ServiceEndpointHostClient#newRequestId()}) and stored with the request before the
         * first send. Sending the same request under it again is a safe replay; another body or
         * another granter under it is {@code denied}.
         */
        String requestId();
    }

    /**
     * Admission of one endpoint instance, through the service authority entry only
     * ({@code ServiceEndpointHost.admit}, {@code POST /service-endpoint-authority}; the host route
     * answers {@code unsupported}). The granter, the owner the registering daemon's proof names,
     * becomes the instance's owner; the answer is {@code pending} with the proposal it decides.
     *
     * @param requestId this write's id ({@link Mutating#requestId()})
     * @param endpoint the endpoint the instance serves
     * @param instanceId the instance's id, random and new: a pair {@code (endpoint, instanceId)} that
     *     was ever registered, by anyone, is {@code denied}; it names the instance's subjects
     *     {@code <prefix>.svc.ep.<token>.<instanceId>.>}
     * @param contractDigest {@code sha256:} and 64 lowercase hex: the registering daemon's SHA-256
     *     of the document describing what the instance serves (a format of the service's own). The
     *     host never reads a contract: it shows the digest to the owner in the proposal and binds
     *     it into the approval's digest
     * @param callerCeiling the capabilities any caller grant on the instance may give (distinct;
     *     empty: none), each a last subject token callers publish to
     */
    record Register(String requestId, String endpoint, String instanceId, String contractDigest, List<String> callerCeiling)
            implements Mutating {
        /** Checks every field's form: a malformed one is {@code bad-request} naming it. */
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

    /**
     * The instance owner's decision on a pending register: approve opens the instance's gate, so
     * its serving connections are admitted; refuse retires it for good. It rides the register's
     * slot, so a full instance can always be decided.
     *
     * @param requestId this write's id ({@link Mutating#requestId()})
     * @param endpoint the instance's endpoint, as registered
     * @param instanceId the instance's id, as registered
     * @param decision approve or refuse
     */
    record Decide(String requestId, String endpoint, String instanceId, Decision decision) implements Mutating {
        /** Checks every field's form: a malformed one is {@code bad-request} naming it. */
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
        /** {@code approve}: the gate opens and the instance may serve. */
        APPROVE("approve"),
        /** {@code refuse}: the gate retires; the instance never serves. */
        REFUSE("refuse");

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

    /**
     * Revokes an instance: its assignment is fenced and its gate retired, so no serving connection
     * is admitted again, and the live ones are closed through the broker
     * ({@link HostResult#liveConnections()}). The owner revokes its own instance, the operator any.
     *
     * @param requestId this write's id ({@link Mutating#requestId()})
     * @param endpoint the instance's endpoint
     * @param instanceId the instance's id
     */
    record Revoke(String requestId, String endpoint, String instanceId) implements Mutating {
        /** Checks every field's form: a malformed one is {@code bad-request} naming it. */
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
     * Binds a name to an endpoint of one owner, once: the operator's write. The binding is a
     * directory row anyone reads ({@link NameRead}); the host resolves no name itself and checks no
     * domain control: verify the claim before binding.
     *
     * @param requestId this write's id ({@link Mutating#requestId()})
     * @param name the name bound, an {@link EndpointName} ({@code com.example.forecast})
     * @param endpoint the endpoint it names
     * @param owner the endpoint's owner ({@code u_} and 26 of {@code [a-z2-7]})
     * @param claimReference 1 to 256 printable ASCII characters: where the operator's evidence that
     *     the name is the owner's lies ({@code dns:...}); stored as given, never checked
     * @param expectedRevision 0 (the name unbound); any other value is {@code denied}, since a name
     *     is never rebound
     */
    record NameBind(String requestId, String name, String endpoint, String owner, String claimReference,
            long expectedRevision) implements Mutating {
        /** Checks every field's form: a malformed one is {@code bad-request} naming it. */
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

    /**
     * The principal a caller grant names; it must hold a current row of the space's actor ledger
     * when the grant is made.
     *
     * @param owner {@code u_} and 26 of {@code [a-z2-7]}
     * @param actor 1 to 64 of {@code [A-Za-z0-9_]}
     */
    record Grantee(String owner, String actor) {
        /** Checks every field's form: a malformed one is {@code bad-request} naming it. */
        public Grantee {
            Grammar.check(Grammar.OWNER, owner, "grantee.owner");
            Grammar.check(Grammar.ACTOR, actor, "grantee.actor");
        }
    }

    /**
     * The owner's grant of caller rights on its approved, open instance: from its next connect the
     * grantee may publish {@code <prefix>.svc.ep.<token>.<instanceId>.<capability>} for each
     * capability. The answer is {@code granted}; its operation id is the grant's id.
     *
     * @param requestId this write's id ({@link Mutating#requestId()})
     * @param endpoint the instance's endpoint
     * @param instanceId the instance's id
     * @param grantee who may call
     * @param capabilities one or more distinct capabilities, each within the approval's caller
     *     ceiling (else {@code denied})
     */
    record CallerGrant(String requestId, String endpoint, String instanceId, Grantee grantee, List<String> capabilities)
            implements Mutating {
        /** Checks every field's form: a malformed one is {@code bad-request} naming it. */
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

    /**
     * The owner's revocation of one caller grant; the connections admitted with it are closed
     * through the broker ({@link HostResult#liveConnections()}).
     *
     * @param requestId this write's id ({@link Mutating#requestId()})
     * @param endpoint the instance's endpoint
     * @param instanceId the instance's id
     * @param grantId the grant's id, its caller-grant's operation id
     */
    record CallerRevoke(String requestId, String endpoint, String instanceId, String grantId) implements Mutating {
        /** Checks every field's form: a malformed one is {@code bad-request} naming it. */
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

    /**
     * One caller grant of the proved owner's instance.
     *
     * @param endpoint the instance's endpoint
     * @param instanceId the instance's id
     * @param grantId the grant's id
     */
    record CallerRead(String endpoint, String instanceId, String grantId) implements HostRequest {
        /** Checks every field's form: a malformed one is {@code bad-request} naming it. */
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

    /**
     * The caller grants of the proved owner's instance, a page at a time.
     *
     * @param endpoint the instance's endpoint
     * @param instanceId the instance's id
     * @param cursor null for the first page, then the previous page's {@link HostResult#cursor()}
     *     (base64url, at most 512 characters)
     * @param limit 1 to 100 grants a page; null for 50
     */
    record CallerList(String endpoint, String instanceId, String cursor, Integer limit) implements HostRequest {
        /** Checks every field's form: a malformed one is {@code bad-request} naming it. */
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

    /**
     * The current view of one instance of the proved owner; a missing and a foreign instance both
     * answer {@code denied}.
     *
     * @param endpoint the instance's endpoint
     * @param instanceId the instance's id
     */
    record InstanceRead(String endpoint, String instanceId) implements HostRequest {
        /** Checks every field's form: a malformed one is {@code bad-request} naming it. */
        public InstanceRead {
            Grammar.name(endpoint, "endpoint");
            Grammar.check(Grammar.INSTANCE_ID, instanceId, "instanceId");
        }

        @Override
        public String kind() {
            return "instance-read";
        }
    }

    /**
     * The proved owner's approved instances (revoked ones included), a page at a time.
     *
     * @param cursor null for the first page, then the previous page's {@link HostResult#cursor()}
     * @param limit 1 to 100 instances a page; null for 50
     */
    record InstanceList(String cursor, Integer limit) implements HostRequest {
        /** Checks every field's form: a malformed one is {@code bad-request} naming it. */
        public InstanceList {
            Grammar.optional(Grammar.CURSOR, cursor, "cursor");
            Grammar.limit(limit);
        }

        @Override
        public String kind() {
            return "instance-list";
        }
    }

    /**
     * The proposal of a register operation, for the instance's owner or the operator.
     *
     * @param operationId the register's operation id (its result's {@code operationId})
     */
    record ProposalRead(String operationId) implements HostRequest {
        /** Checks every field's form: a malformed one is {@code bad-request} naming it. */
        public ProposalRead {
            Grammar.check(Grammar.OPERATION_ID, operationId, "operationId");
        }

        @Override
        public String kind() {
            return "proposal-read";
        }
    }

    /**
     * The authoritative view of an operation, its debt included, for the instance's owner or the
     * operator (a name-bind's: the operator).
     *
     * @param operationId the operation's id, as a write's result names it
     */
    record OperationRead(String operationId) implements HostRequest {
        /** Checks every field's form: a malformed one is {@code bad-request} naming it. */
        public OperationRead {
            Grammar.check(Grammar.OPERATION_ID, operationId, "operationId");
        }

        @Override
        public String kind() {
            return "operation-read";
        }
    }

    /**
     * A name binding; anyone may read it.
     *
     * @param name the bound name
     */
    record NameRead(String name) implements HostRequest {
        /** Checks every field's form: a malformed one is {@code bad-request} naming it. */
        public NameRead {
            Grammar.name(name, "name");
        }

        @Override
        public String kind() {
            return "name-read";
        }
    }
}
