package ai.cotal.auth.internal.endpoint;

import ai.cotal.auth.ActorLedger;
import ai.cotal.auth.ActorRow;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult.Status;
import ai.cotal.servicehost.Views;
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

    Plan nameBind(Invocation inv, Snapshot s, Planner.Bound b, HostRequest.NameBind r) {
        String opId = b.operationId();
        if (r.expectedRevision() != 0) {
            return Planner.denied("expectedRevision must be 0: a name binds once and is never updated");
        }
        Discovery.Seen nameSeen = s.seen(Rows.name(r.name()));
        Rows.NameBinding stored = s.row(nameSeen.key(), Rows.NameBinding.class);
        Rows.NameBinding mine = new Rows.NameBinding(Rows.V, r.endpoint(), r.owner(), r.claimReference(), inv.digest);
        if (b.terminal()) {
            return planner.stored(s, b, o -> InstancePlans.terminalAnswer(b.op(), opId, o, "name")
                    .name(stored == null ? null : nameView(r.name(), stored)).build());
        }
        String problem = nameSeen.tombstone() ? "the name's key was deleted behind the host's back; it stays closed"
                : stored != null && !stored.requestDigest().equals(inv.digest) ? "the name is already bound" : null;
        if (problem != null) {
            return planner.refuse(inv, s, b, null, null, problem);
        }
        Plan p = planner.begin(inv, s, b, null, null);
        if (stored == null) {
            p.create(nameSeen.key(), mine, "name");
        }
        planner.settle(p, s, inv, b, planner.open(inv, b, null, null), "completed", null, null, null, List.of());
        p.answer = o -> Answers.completed(opId, o.tags().containsKey("name")).name(nameView(r.name(), mine)).build();
        return p;
    }

    Plan callerGrant(Invocation inv, Snapshot s, Planner.Bound b, HostRequest.CallerGrant r) {
        String e = r.endpoint();
        String i = r.instanceId();
        String opId = b.operationId();
        String grantKey = Rows.grant(e, i, opId);
        if (b.terminal()) {
            Rows.CallerGrant stored = s.row(grantKey, Rows.CallerGrant.class);
            return planner.stored(s, b, o -> InstancePlans.terminalAnswer(b.op(), opId, o, "grant")
                    .grant(stored == null ? null : grantView(opId, e, i, stored)).build());
        }
        Rows.CallerGrant created = b.bound() ? s.row(Planner.live(s, grantKey).key(), Rows.CallerGrant.class) : null;
        if (created != null) { // an earlier attempt created the grant: settle it, whatever changed since
            Plan p = planner.begin(inv, s, b, e, i);
            if (p.answer != null) {
                return p;
            }
            planner.settle(p, s, inv, b, planner.open(inv, b, e, i), "granted", null, e, i, List.of(r.requestId()));
            p.answer = o -> Answers.of(Status.granted).operation(opId).debt(Planner.debt(p, o))
                    .grant(grantView(opId, e, i, created)).build();
            return p;
        }
        InstancePlans.Target t = InstancePlans.Target.read(s, e, i);
        Rows.Gate gate = t.gate();
        Rows.Proposal prop = t.prop();
        if (!t.visibleTo(inv.owner()) || inv.owner() == null) {
            return planner.refuse(inv, s, b, e, i, "no such instance");
        }
        Discovery.Seen apprSeen = Planner.live(s, Rows.appr(e, i));
        Rows.Approval appr = s.row(apprSeen.key(), Rows.Approval.class);
        Discovery.Seen asgSeen = Planner.live(s, Rows.asg(prop.owner(), e, i));
        Rows.Assignment asg = s.row(asgSeen.key(), Rows.Assignment.class);
        Optional<ActorRow> grantee = ledger.find(r.grantee().owner(), r.grantee().actor());
        String problem = appr == null || asg == null || !asg.state().equals("active") || !gate.state().equals("open")
                ? "the instance is not approved and active"
                : !appr.callerCeiling().containsAll(r.capabilities()) ? "the capabilities exceed the approval's caller ceiling"
                : grantee.isEmpty() ? "the grantee is not a current principal of this space" : null;
        if (problem != null) {
            return planner.refuse(inv, s, b, e, i, problem);
        }
        Plan p = planner.begin(inv, s, b, e, i);
        if (p.answer != null) {
            return p;
        }
        Discovery.Seen grantSeen = Planner.live(s, grantKey);
        Rows.CallerGrant row = s.row(grantKey, Rows.CallerGrant.class);
        if (row == null) {
            row = new Rows.CallerGrant(Rows.V, r.grantee().owner(), r.grantee().actor(), r.capabilities(), List.of(
                    apprSeen.key() + "@" + apprSeen.revision(), asgSeen.key() + "@" + asgSeen.revision(),
                    "actor." + r.grantee().owner() + "." + r.grantee().actor() + "." + grantee.get().lifecycleUid()),
                    "active");
            p.verify(apprSeen);
            p.verify(asgSeen);
            p.create(grantSeen.key(), row, "grant");
        }
        Rows.CallerGrant granted = row;
        planner.settle(p, s, inv, b, planner.open(inv, b, e, i), "granted", null, e, i, List.of(r.requestId()));
        p.answer = o -> Answers.of(Status.granted).operation(opId).debt(Planner.debt(p, o))
                .grant(grantView(opId, e, i, granted)).build();
        return p;
    }

    Plan callerRevoke(Invocation inv, Snapshot s, Planner.Bound b, HostRequest.CallerRevoke r) {
        String e = r.endpoint();
        String i = r.instanceId();
        String opId = b.operationId();
        Discovery.Seen grantSeen = s.seen(Rows.grant(e, i, r.grantId()));
        Rows.CallerGrant grant = s.row(grantSeen.key(), Rows.CallerGrant.class);
        if (b.terminal()) {
            return planner.stored(s, b, o -> InstancePlans.terminalAnswer(b.op(), opId, o, "revoke-grant")
                    .grant(grant == null ? null : grantView(r.grantId(), e, i, grant)).build());
        }
        InstancePlans.Target t = InstancePlans.Target.read(s, e, i);
        if (!t.visibleTo(inv.owner()) || inv.owner() == null || grant == null) {
            return planner.refuse(inv, s, b, e, i, "no such grant");
        }
        Plan p = planner.begin(inv, s, b, e, i);
        if (p.answer != null) {
            return p;
        }
        Rows.CallerGrant revoked = new Rows.CallerGrant(Rows.V, grant.owner(), grant.actor(), grant.capabilities(),
                grant.parentRefs(), "revoked");
        if (grant.state().equals("active")) {
            p.cas(grantSeen, revoked, "revoke-grant");
        }
        planner.settle(p, s, inv, b, planner.open(inv, b, e, i), "completed", null, e, i, List.of(r.requestId()));
        p.answer = o -> Answers.completed(opId, o.tags().containsKey("revoke-grant")).debt(Planner.debt(p, o))
                .grant(grantView(r.grantId(), e, i, revoked)).build();
        return p;
    }

    static Views.Name nameView(String name, Rows.NameBinding row) {
        return new Views.Name(name, row.endpoint(), row.owner(), row.claimReference());
    }

    static Views.Grant grantView(String grantId, String e, String i, Rows.CallerGrant row) {
        return new Views.Grant(grantId, e, i, new HostRequest.Grantee(row.owner(), row.actor()), row.capabilities(),
                row.state());
    }
}
