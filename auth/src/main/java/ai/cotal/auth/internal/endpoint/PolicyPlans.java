package ai.cotal.auth.internal.endpoint;

import ai.cotal.auth.ActorLedger;
import ai.cotal.auth.ActorRow;
import ai.cotal.auth.internal.endpoint.Plan.Tag;
import ai.cotal.core.id.Principal;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult.Status;
import ai.cotal.servicehost.Views;
import ai.cotal.servicehost.Views.AssignmentState;
import ai.cotal.servicehost.Views.GateState;
import ai.cotal.servicehost.Views.GrantState;
import ai.cotal.servicehost.Views.OperationState;
import java.util.List;
import java.util.Optional;

/** Name binding and caller policy (SPEC §13.1 step 4). */
final class PolicyPlans {
    private final Planner planner;
    private final ActorLedger ledger;

    PolicyPlans(Planner planner, ActorLedger ledger) {
        this.planner = planner;
        this.ledger = ledger;
    }

    Plan nameBind(Pass x, HostRequest.NameBind r) {
        Snapshot s = x.snapshot();
        String opId = x.operationId();
        if (r.expectedRevision() != 0) {
            return Planner.denied("expectedRevision must be 0: a name binds once and is never updated");
        }
        Discovery.Seen nameSeen = s.seen(Rows.name(r.name()));
        Rows.NameBinding stored = s.row(nameSeen.key(), Rows.NameBinding.class);
        Rows.NameBinding mine = new Rows.NameBinding(Rows.V, r.endpoint(), r.owner(), r.claimReference(), x.inv().digest,
                x.inv().auditId());
        if (x.bound().terminal()) {
            return planner.stored(x, o -> InstancePlans.terminalAnswer(x, o, Tag.NAME)
                    .name(stored == null ? null : nameView(r.name(), stored)).build());
        }
        String problem = nameSeen.tombstone() ? "the name's key was deleted behind the host's back; it stays closed"
                : stored != null && !stored.requestDigest().equals(x.inv().digest) ? "the name is already bound" : null;
        if (problem != null) {
            return planner.refuse(x, problem);
        }
        Plan p = planner.begin(x);
        if (stored == null) {
            p.create(nameSeen.key(), mine, Tag.NAME);
        }
        planner.settle(p, x, OperationState.COMPLETED, null, List.of());
        p.answer = o -> Answers.completed(opId, o.wrote(Tag.NAME)).name(nameView(r.name(), mine)).build();
        return p;
    }

    Plan callerGrant(Pass x, HostRequest.CallerGrant r) {
        Snapshot s = x.snapshot();
        String e = r.endpoint();
        String i = r.instanceId();
        String opId = x.operationId();
        String grantKey = Rows.grant(e, i, opId);
        if (x.bound().terminal()) {
            Rows.CallerGrant stored = s.row(grantKey, Rows.CallerGrant.class);
            return planner.stored(x, o -> InstancePlans.terminalAnswer(x, o, Tag.GRANT)
                    .grant(stored == null ? null : grantView(opId, e, i, stored)).build());
        }
        Rows.CallerGrant created = x.bound().bound() ? s.row(Planner.live(s, grantKey).key(), Rows.CallerGrant.class) : null;
        if (created != null) { // an earlier attempt created the grant: settle it, whatever changed since
            Plan p = planner.begin(x);
            if (p.answer != null) {
                return p;
            }
            index(p, s, e, i, created, opId, true);
            planner.settle(p, x, OperationState.GRANTED, null, List.of(r.requestId()));
            p.answer = o -> Answers.of(Status.GRANTED).operation(opId).debt(Planner.debt(p, o))
                    .grant(grantView(opId, e, i, created)).build();
            return p;
        }
        InstancePlans.Target t = InstancePlans.Target.read(s, e, i);
        Rows.Gate gate = t.gate();
        Rows.Proposal prop = t.prop();
        if (!t.visibleTo(x.owner()) || x.owner() == null) {
            return planner.refuse(x, "no such instance");
        }
        Discovery.Seen apprSeen = Planner.live(s, Rows.appr(e, i));
        Rows.Approval appr = s.row(apprSeen.key(), Rows.Approval.class);
        Discovery.Seen asgSeen = Planner.live(s, Rows.asg(prop.owner(), e, i));
        Rows.Assignment asg = s.row(asgSeen.key(), Rows.Assignment.class);
        Optional<ActorRow> grantee = ledger.find(Principal.of(r.grantee().owner(), r.grantee().actor()));
        String problem = appr == null || asg == null || asg.state() != AssignmentState.ACTIVE || gate.state() != GateState.OPEN
                ? "the instance is not approved and active"
                : !appr.callerCeiling().containsAll(r.capabilities()) ? "the capabilities exceed the approval's caller ceiling"
                : grantee.isEmpty() ? "the grantee is not a current principal of this space" : null;
        if (problem != null) {
            return planner.refuse(x, problem);
        }
        Plan p = planner.begin(x);
        if (p.answer != null) {
            return p;
        }
        Discovery.Seen grantSeen = Planner.live(s, grantKey);
        Rows.CallerGrant row = s.row(grantKey, Rows.CallerGrant.class);
        if (row == null) {
            row = new Rows.CallerGrant(Rows.V, r.grantee().owner(), r.grantee().actor(), r.capabilities(), List.of(
                    apprSeen.key() + "@" + apprSeen.revision(), asgSeen.key() + "@" + asgSeen.revision(),
                    "actor." + r.grantee().owner() + "." + r.grantee().actor() + "." + grantee.get().lifecycleUid()),
                    GrantState.ACTIVE);
            p.verify(apprSeen);
            p.verify(asgSeen);
            p.create(grantSeen.key(), row, Tag.GRANT);
        }
        index(p, s, e, i, row, opId, true);
        Rows.CallerGrant granted = row;
        planner.settle(p, x, OperationState.GRANTED, null, List.of(r.requestId()));
        p.answer = o -> Answers.of(Status.GRANTED).operation(opId).debt(Planner.debt(p, o))
                .grant(grantView(opId, e, i, granted)).build();
        return p;
    }

    Plan callerRevoke(Pass x, HostRequest.CallerRevoke r) {
        Snapshot s = x.snapshot();
        String e = r.endpoint();
        String i = r.instanceId();
        String opId = x.operationId();
        Discovery.Seen grantSeen = s.seen(Rows.grant(e, i, r.grantId()));
        Rows.CallerGrant grant = s.row(grantSeen.key(), Rows.CallerGrant.class);
        if (x.bound().terminal()) {
            return planner.stored(x, o -> InstancePlans.terminalAnswer(x, o, Tag.REVOKE_GRANT)
                    .grant(grant == null ? null : grantView(r.grantId(), e, i, grant)).build());
        }
        InstancePlans.Target t = InstancePlans.Target.read(s, e, i);
        if (!t.visibleTo(x.owner()) || x.owner() == null || grant == null) {
            return planner.refuse(x, "no such grant");
        }
        Plan p = planner.begin(x);
        if (p.answer != null) {
            return p;
        }
        Rows.CallerGrant revoked = new Rows.CallerGrant(Rows.V, grant.owner(), grant.actor(), grant.capabilities(),
                grant.parentRefs(), GrantState.REVOKED);
        if (grant.state() == GrantState.ACTIVE) {
            p.cas(grantSeen, revoked, Tag.REVOKE_GRANT);
        }
        index(p, s, e, i, grant, r.grantId(), false);
        planner.settle(p, x, OperationState.COMPLETED, null, List.of(r.requestId()));
        p.answer = o -> Answers.completed(opId, o.wrote(Tag.REVOKE_GRANT)).debt(Planner.debt(p, o))
                .grant(grantView(r.grantId(), e, i, revoked)).build();
        return p;
    }

    /**
     * After the grant row: the grantee index lists {@code grantId} ({@code listed}) or no longer does
     * (created when fresh, else a CAS; nothing when it already agrees). SPEC §13.1 "Grantee index".
     */
    private static void index(Plan p, Snapshot s, String e, String i, Rows.CallerGrant grant, String grantId,
            boolean listed) {
        Discovery.Seen seen = Planner.live(s, Rows.grantee(grant.owner(), grant.actor(), e, i));
        Rows.GranteeIndex row = s.row(seen.key(), Rows.GranteeIndex.class);
        List<String> ids = row == null ? List.of() : row.grants();
        if (ids.contains(grantId) == listed) {
            return;
        }
        List<String> next = new java.util.ArrayList<>(ids);
        if (listed) {
            next.add(grantId);
        } else {
            next.remove(grantId);
        }
        p.put(seen, new Rows.GranteeIndex(Rows.V, e, i, next), Tag.GRANTEE);
    }

    static Views.Name nameView(String name, Rows.NameBinding row) {
        return new Views.Name(name, row.endpoint(), row.owner(), row.claimReference());
    }

    static Views.Grant grantView(String grantId, String e, String i, Rows.CallerGrant row) {
        return new Views.Grant(grantId, e, i, new HostRequest.Grantee(row.owner(), row.actor()), row.capabilities(),
                row.state());
    }
}
