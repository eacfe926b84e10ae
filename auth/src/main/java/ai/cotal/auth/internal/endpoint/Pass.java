package ai.cotal.auth.internal.endpoint;

/**
 * What one planning pass knows: the invocation (its request, granter and minted ids), the
 * discovery snapshot, the request's binding as discovered, the instance whose capacity the
 * request uses, and the pass's clock reading (every timestamp one pass writes is that instant).
 * Single-threaded, like its snapshot.
 */
record Pass(Invocation inv, Snapshot snapshot, Planner.Bound bound, Pass.Slot slot, String now) {

    /**
     * An instance's capacity ({@code svc.cap.<endpoint>.<instanceId>}); {@link #NONE} for a request
     * admitted to no instance (a name binding).
     */
    record Slot(String endpoint, String instanceId) {
        static final Slot NONE = new Slot(null, null);
    }

    String operationId() {
        return bound.operationId();
    }

    String requestId() {
        return inv.request.requestId();
    }

    /** The owner of an owner granter; null for the operator. */
    String owner() {
        return inv.owner();
    }
}
