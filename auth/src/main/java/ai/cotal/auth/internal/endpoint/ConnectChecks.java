package ai.cotal.auth.internal.endpoint;

import ai.cotal.auth.EndpointInstance;
import ai.cotal.auth.internal.callout.EndpointAccess;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.servicehost.Views.AssignmentState;
import ai.cotal.servicehost.Views.GateState;
import ai.cotal.servicehost.Views.GrantState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * What the auth callout reads of the host's records at every connect (SPEC §13.16), on the
 * read-only discovery connection: whether a serving connect's instance admits it, and which
 * caller grants a principal holds. Nothing is cached (a JWT is checked only at connect). A failed
 * read refuses {@code unavailable}; a tripped host refuses serving connects {@code unavailable}
 * and gives callers no grant (the plane, and its plain connects, stay up). Thread-safe.
 */
public final class ConnectChecks {
    private final Discovery discovery;
    private final BooleanSupplier tripped;

    ConnectChecks(Discovery discovery, BooleanSupplier tripped) {
        this.discovery = discovery;
        this.tripped = tripped;
    }

    /**
     * Admits {@code owner}'s serving connect of {@code instance}: the gate open, the proposal it
     * names {@code owner}'s, the assignment active with the gate's uid; else {@code permission-denied}
     * with the reason (a missing and a foreign instance read the same).
     */
    public void checkServing(String owner, EndpointInstance instance) {
        requireServing();
        String e = instance.endpoint();
        String i = instance.instanceId();
        Rows.Gate gate = row(Rows.gate(e, i), Rows.Gate.class);
        Rows.Proposal prop = gate == null ? null : row(Rows.prop(gate.operationId()), Rows.Proposal.class);
        if (prop == null || !prop.owner().equals(owner)) {
            throw refused("no such instance of this owner");
        }
        if (gate.state() == GateState.FROZEN) {
            throw refused("the instance is pending its owner's decision (gate frozen)");
        }
        if (gate.state() == GateState.RETIRED) {
            throw refused(gate.assignment() == null ? "the owner refused the instance (gate retired)"
                    : "the instance was revoked (gate retired: deny-new in effect)");
        }
        Rows.Assignment asg = row(Rows.asg(owner, e, i), Rows.Assignment.class);
        if (asg == null || asg.state() != AssignmentState.ACTIVE || !asg.uid().equals(gate.assignment())) {
            throw refused("the instance was revoked (assignment fenced)");
        }
    }

    /**
     * The active caller grants of {@code owner.actor} at lifecycle {@code lifecycleUid}: every grant
     * its index rows list that is active, names this principal and lifecycle, on an open gate.
     */
    public List<EndpointAccess.Grant> callerGrants(String owner, String actor, String lifecycleUid) {
        if (tripped.getAsBoolean()) {
            return List.of(); // until the plane is opened again; fail closed on the endpoints only
        }
        String actorRef = "actor." + owner + "." + actor + "." + lifecycleUid;
        Map<String, Boolean> open = new HashMap<>();
        List<EndpointAccess.Grant> grants = new ArrayList<>();
        for (String key : discovery.keys(Rows.granteePrefix(owner, actor))) {
            Rows.GranteeIndex index = row(key, Rows.GranteeIndex.class);
            if (index == null || !key.equals(Rows.grantee(owner, actor, index.endpoint(), index.instanceId()))) {
                continue; // a row that names another instance than its key is not trusted
            }
            for (String grantId : index.grants()) {
                Rows.CallerGrant grant = row(Rows.grant(index.endpoint(), index.instanceId(), grantId),
                        Rows.CallerGrant.class);
                if (grant == null || grant.state() != GrantState.ACTIVE || !grant.owner().equals(owner)
                        || !grant.actor().equals(actor) || !grant.parentRefs().contains(actorRef)
                        || !open.computeIfAbsent(key, k -> gateOpen(index.endpoint(), index.instanceId()))) {
                    continue;
                }
                grants.add(new EndpointAccess.Grant(grantId, new EndpointInstance(index.endpoint(), index.instanceId()),
                        grant.capabilities()));
            }
        }
        return grants;
    }

    private boolean gateOpen(String endpoint, String instanceId) {
        Rows.Gate gate = row(Rows.gate(endpoint, instanceId), Rows.Gate.class);
        return gate != null && gate.state() == GateState.OPEN;
    }

    private void requireServing() {
        if (tripped.getAsBoolean()) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "service endpoints: the host stopped serving; the connect"
                    + " cannot be checked now");
        }
    }

    /** The row at {@code key}, null when absent; a delete marker on a host key is {@code data-loss}. */
    private <T extends Rows.Versioned> T row(String key, Class<T> type) {
        Discovery.Seen seen = discovery.read(key);
        if (seen.tombstone()) {
            throw new CotalException(ErrorCode.DATA_LOSS, "service endpoints: " + key + " was deleted behind the host's"
                    + " back");
        }
        return seen.present() ? Rows.read(seen.data(), type, key) : null;
    }

    private static CotalException refused(String reason) {
        return new CotalException(ErrorCode.PERMISSION_DENIED, "endpoint-server: " + reason);
    }
}
