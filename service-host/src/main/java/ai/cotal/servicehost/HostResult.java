package ai.cotal.servicehost;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.List;

/**
 * The answer to a host request (SPEC §13.1). {@code requestId} echoes the request's on every
 * answer to a request that has one (the writes), so a client can refuse an answer to another
 * request; reads carry none. {@code operationId} is present once a binding exists
 * or may exist ({@code pending}, {@code held}, {@code refused}, {@code completed},
 * {@code granted}); never on {@code denied}. {@code debt} lists the capacity releases the
 * request's own operation still owes as far as this invocation saw (never another request's slot;
 * absent never means nothing is owed). {@code denyNew} appears on
 * revoke results only with evidence. Payload fields carry the kind's views. {@code liveConnections}
 * appears on completed revoke and caller-revoke results: what the host did to the live
 * connections holding the revoked instance or grant. Immutable.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record HostResult(Status status, String requestId, String operationId, Completion completion, List<String> debt, DenyNew denyNew,
        Long approvedGateRevision, String reason, Views.Instance instance, List<Views.Instance> instances, String cursor,
        Views.Proposal proposal, Views.Operation operation, Views.Name name, Views.Grant grant, List<Views.Grant> grants,
        LiveConnections liveConnections) {

    /**
     * The live connections a revoke closed through the broker: {@code closed} the broker closed
     * now or no longer holds, {@code open} it could not be asked to close (they end at their
     * credential's expiry), and {@code unclosed} why, present exactly when {@code open} is not 0.
     * {@code swept}: the broker was asked which of its connections hold the revoked instance or
     * grant, so the counts include those an earlier host admitted; when false they cover only the
     * connections this host admitted (SPEC §13.16). The revoke itself stands either way.
     */
    public record LiveConnections(int closed, int open, boolean swept, Unclosed unclosed) {
        public LiveConnections {
            if (closed < 0 || open < 0) {
                throw ContractException.badRequest("liveConnections", "counts are never negative");
            }
            if ((open > 0) != (unclosed != null)) {
                throw ContractException.badRequest("liveConnections.unclosed", "present exactly when open is not 0");
            }
        }

        /** Evidence that every connection it found was closed ({@code open} 0). */
        public static LiveConnections allClosed(int closed, boolean swept) {
            return new LiveConnections(closed, 0, swept, null);
        }
    }

    /** Why a revoke left live connections open. */
    public enum Unclosed {
        /** The secret store holds no connection-evictor credential for the space: nothing was asked to close. */
        NO_EVICTOR_CREDENTIAL("no-evictor-credential"),
        /** The evictor could not connect to the broker (or its credential does not parse or is refused). */
        BROKER_UNREACHABLE("broker-unreachable"),
        /** The broker did not answer, or refused, the kick of one or more connections in time. */
        KICK_UNANSWERED("kick-unanswered");

        private final String wire;

        Unclosed(String wire) {
            this.wire = wire;
        }

        /** The name on the wire. */
        @JsonValue
        public String wire() {
            return wire;
        }
    }

    /** What happened. */
    public enum Status {
        PENDING("pending"), HELD("held"), REFUSED("refused"), DENIED("denied"), COMPLETED("completed"),
        GRANTED("granted"), UNSUPPORTED("unsupported");

        private final String wire;

        Status(String wire) {
            this.wire = wire;
        }

        /** The name on the wire. */
        @JsonValue
        public String wire() {
            return wire;
        }
    }

    /**
     * Whether this invocation applied a completed result ({@code applied}; for a decide: its own gate
     * compare-and-set decided the gate) or returned what was already stored ({@code stored}).
     */
    public enum Completion {
        APPLIED("applied"), STORED("stored");

        private final String wire;

        Completion(String wire) {
            this.wire = wire;
        }

        /** The name on the wire. */
        @JsonValue
        public String wire() {
            return wire;
        }
    }

    /** Evidence about deny-new on a revoke. */
    public enum DenyNew {
        IN_EFFECT("in-effect"), UNKNOWN("unknown"), LANDED("landed");

        private final String wire;

        DenyNew(String wire) {
            this.wire = wire;
        }

        /** The name on the wire. */
        @JsonValue
        public String wire() {
            return wire;
        }
    }

    public HostResult {
        if (status == null) {
            throw ContractException.badRequest("status", "is required");
        }
        Grammar.optional(Grammar.REQUEST_ID, requestId, "requestId");
        Grammar.optional(Grammar.OPERATION_ID, operationId, "operationId");
        if (status == Status.DENIED && operationId != null) {
            throw ContractException.badRequest("operationId", "a denied result names no operation");
        }
        if ((status == Status.PENDING || status == Status.REFUSED || status == Status.COMPLETED
                || status == Status.GRANTED) && operationId == null && operation == null && proposal == null
                && instance == null && instances == null && name == null && grant == null && grants == null) {
            throw ContractException.badRequest("operationId", "a " + status.wire() + " result of a write names its operation");
        }
        if ((status == Status.COMPLETED) != (completion != null)) {
            throw ContractException.badRequest("completion", "present exactly on completed results");
        }
        if (debt != null) {
            debt = List.copyOf(debt);
            for (int i = 0; i < debt.size(); i++) {
                Grammar.check(Grammar.REQUEST_ID, debt.get(i), "debt[" + i + "]");
            }
        }
        if (approvedGateRevision != null) {
            Grammar.revision(approvedGateRevision, "approvedGateRevision");
        }
        instances = instances == null ? null : List.copyOf(instances);
        grants = grants == null ? null : List.copyOf(grants);
        Grammar.optional(Grammar.CURSOR, cursor, "cursor");
    }

    /** A result with only a status (and a reason). */
    public static HostResult of(Status status, String operationId, String reason) {
        return new HostResult(status, null, operationId, null, null, null, null, reason, null, null, null, null, null, null,
                null, null, null);
    }

    /** This result as the answer to the request {@code id} (null: a read, which has none). */
    public HostResult withRequestId(String id) {
        return new HostResult(status, id, operationId, completion, debt, denyNew, approvedGateRevision, reason, instance,
                instances, cursor, proposal, operation, name, grant, grants, liveConnections);
    }

    /** This result with {@code evidence} of what its revoke did to live connections. */
    public HostResult withLiveConnections(LiveConnections evidence) {
        return new HostResult(status, requestId, operationId, completion, debt, denyNew, approvedGateRevision, reason, instance,
                instances, cursor, proposal, operation, name, grant, grants, evidence);
    }
}
