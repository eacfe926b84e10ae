package ai.cotal.auth.internal.endpoint;

import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult.DenyNew;
import ai.cotal.servicehost.HostResult.Status;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Register, decide and revoke (SPEC §13.1 step 4): the instance lifecycle. */
final class InstancePlans {
    private final Planner planner;
    private final Discovery discovery;
    private final java.util.function.Supplier<Hooks> hooks;

    InstancePlans(Planner planner, Discovery discovery, java.util.function.Supplier<Hooks> hooks) {
        this.planner = planner;
        this.discovery = discovery;
        this.hooks = hooks;
    }

    /** The instance as discovered: its gate and the proposal the gate names. */
    record Target(Discovery.Seen gateSeen, Rows.Gate gate, Discovery.Seen propSeen, Rows.Proposal prop) {
        static Target read(Snapshot s, String endpoint, String instanceId) {
            Discovery.Seen gateSeen = s.seen(Rows.gate(endpoint, instanceId));
            Rows.Gate gate = s.row(gateSeen.key(), Rows.Gate.class);
            Discovery.Seen propSeen = gate == null ? null : Planner.live(s, Rows.prop(gate.operationId()));
            Rows.Proposal prop = gate == null ? null : s.row(propSeen.key(), Rows.Proposal.class);
            return new Target(gateSeen, gate, propSeen, prop);
        }

        /** Visible to {@code owner} (null: the operator sees every instance). */
        boolean visibleTo(String owner) {
            return prop != null && (owner == null || prop.owner().equals(owner));
        }
    }

    Plan register(Invocation inv, Snapshot s, Planner.Bound b, HostRequest.Register r) {
        String e = r.endpoint();
        String i = r.instanceId();
        String opId = b.operationId();
        if (b.terminal()) {
            Rows.Proposal prop = s.row(Rows.prop(opId), Rows.Proposal.class);
            return planner.stored(s, b, o -> terminal(b.op(), opId, opId, prop, o, null));
        }
        Target t = Target.read(s, e, i);
        if (!b.bound() && (t.gateSeen().tombstone() || t.gate() != null)) {
            return Planner.denied("the instance is already registered");
        }
        Plan p = planner.begin(inv, s, b, e, i);
        if (p.answer != null) {
            return p;
        }
        Rows.Operation op = planner.open(inv, b, e, i);
        List<String> releases = List.of(r.requestId());
        if (t.gate() != null && !t.gate().operationId().equals(opId)) {
            String why = "another request registered the instance";
            Discovery.Seen orphanSeen = Planner.live(s, Rows.prop(opId));
            Rows.Proposal orphan = s.row(orphanSeen.key(), Rows.Proposal.class);
            if (orphan != null && orphan.state().equals("pending")) {
                p.cas(orphanSeen, orphan.to("refused", opId), "proposal"); // no proposal stays pending without a gate
            }
            planner.settle(p, s, inv, b, op, "refused", why, e, i, releases);
            p.answer = o -> Answers.of(Status.refused).operation(opId).reason(why).debt(Planner.debt(p, o)).build();
            return p;
        }
        String propKey = Rows.prop(opId);
        // a fresh operation id has no proposal yet: only a bound request's is read
        Discovery.Seen propSeen = b.bound() ? Planner.live(s, propKey) : Discovery.Seen.absent(propKey);
        Rows.Proposal stored = b.bound() ? s.row(propKey, Rows.Proposal.class) : null;
        if (stored != null) {
            p.revisions.put(propKey, propSeen.revision());
        }
        Rows.Proposal prop = stored != null ? stored : new Rows.Proposal(Rows.V, e, i, inv.owner(), r.contractDigest(),
                r.callerCeiling(), "pending", null);
        if (stored == null) {
            p.create(propKey, prop, "proposal");
        }
        if (t.gate() == null) {
            Planner.live(s, t.gateSeen().key());
            p.create(t.gateSeen().key(), revs -> Rows.write(new Rows.Gate(Rows.V, "frozen", 1, revs.get(propKey), opId, null)),
                    "gate");
        }
        p.answer = o -> Answers.of(Status.pending).operation(opId).proposal(Planner.proposalView(opId, prop)).build();
        return p;
    }

    /**
     * The answer of a terminal operation (a replay): {@code refused} with its reason, else
     * {@code completed stored}; {@code proposalOp} names the proposal shown, if any.
     */
    static ai.cotal.servicehost.HostResult terminal(Rows.Operation op, String opId, String proposalOp, Rows.Proposal prop,
            Plan.Outcome o, String appliedTag) {
        return terminalAnswer(op, opId, o, appliedTag).gateRevision(o.tags().get("gate-open"))
                .proposal(prop == null || proposalOp == null ? null : Planner.proposalView(proposalOp, prop)).build();
    }

    /**
     * A terminal operation's answer: {@code refused} with its reason, else {@code completed}
     * ({@code applied} when this invocation wrote {@code appliedTag} in an earlier pass, since a
     * pass that lost a race after settling comes back here; {@code stored} otherwise).
     */
    static Answers terminalAnswer(Rows.Operation op, String opId, Plan.Outcome o, String appliedTag) {
        if ("refused".equals(op.state())) {
            return Answers.of(Status.refused).operation(opId).reason(op.reason());
        }
        boolean applied = appliedTag != null && o.tags().containsKey(appliedTag);
        if ("granted".equals(op.state()) && applied) {
            return Answers.of(Status.granted).operation(opId);
        }
        return Answers.completed(opId, applied);
    }

    Plan decide(Invocation inv, Snapshot s, Planner.Bound b, HostRequest.Decide r) {
        String e = r.endpoint();
        String i = r.instanceId();
        String opId = b.operationId();
        Target t = Target.read(s, e, i);
        String regOpId = t.gate() == null ? null : t.gate().operationId();
        if (b.terminal()) {
            return planner.stored(s, b, o -> terminal(b.op(), opId, regOpId, t.prop(), o,
                    r.decision() == HostRequest.Decision.approve ? "approval" : "gate-retire"));
        }
        if (!t.visibleTo(inv.owner())) {
            return planner.refuse(inv, s, b, e, i, "no such instance");
        }
        Plan p = planner.begin(inv, s, b, e, i);
        if (p.answer != null) {
            return p;
        }
        Rows.Operation op = planner.open(inv, b, e, i);
        Discovery.Seen regSeen = Planner.live(s, Rows.op(regOpId));
        Rows.Operation regOp = s.row(regSeen.key(), Rows.Operation.class);
        Discovery.Seen apprSeen = Planner.live(s, Rows.appr(e, i));
        Rows.Approval appr = s.row(apprSeen.key(), Rows.Approval.class);
        Rows.Proposal prop = t.prop();
        Rows.Gate gate = t.gate();
        // The gate is the one decision point: open (or retired after an approval) = approved,
        // retired without an assignment = refused, frozen = not decided yet.
        String decided = gate.state().equals("frozen") ? "pending"
                : gate.assignment() != null ? "approved" : "refused";
        boolean approve = r.decision() == HostRequest.Decision.approve;
        String mine = approve ? "approved" : "refused";
        String outcome = decided.equals("pending") ? mine : decided;
        String decidedBy = outcome.equals("approved") ? (appr != null ? appr.approvedBy() : opId)
                : prop.state().equals("refused") ? prop.decidedBy() : opId;
        Rows.Proposal after = prop.state().equals(outcome) ? prop : prop.to(outcome, decidedBy);
        if (decided.equals("pending")) {
            if (approve) {
                String uid = appr != null ? appr.assignmentUid() : inv.mintedUid;
                if (appr == null) {
                    byte[] canonical = Rows.write(prop.to("pending", null));
                    String digest = Invocation.sha256((new String(canonical, StandardCharsets.UTF_8) + "\napprove")
                            .getBytes(StandardCharsets.UTF_8));
                    p.create(apprSeen.key(), new Rows.Approval(Rows.V, digest, prop.callerCeiling(), regOpId, uid, opId),
                            "approval");
                }
                p.cas(t.gateSeen(), gate.to("open", uid), "gate-open");
            } else {
                p.cas(t.gateSeen(), gate.to("retired", null), "gate-retire");
            }
        }
        if (outcome.equals("approved")) {
            String uid = decided.equals("pending") ? (appr != null ? appr.assignmentUid() : inv.mintedUid)
                    : gate.assignment();
            Discovery.Seen asgSeen = Planner.live(s, Rows.asg(prop.owner(), e, i));
            if (!asgSeen.present()) {
                p.create(asgSeen.key(), new Rows.Assignment(Rows.V, uid, "active"), "assign");
            }
        }
        if (after != prop) {
            p.cas(t.propSeen(), after, "proposal"); // follows the gate, repairing a losing decision's write
        }
        List<String> releases = new java.util.ArrayList<>(List.of(r.requestId()));
        if (regOp != null) {
            if (!regOp.terminal()) {
                p.cas(regSeen, regOp.settle(outcome.equals("approved") ? "completed" : "refused",
                        List.of(regOp.requestId()), outcome.equals("approved") ? null : "the owner refused the proposal",
                        planner.now()), "register");
            }
            releases.add(regOp.requestId()); // terminal now, or made terminal by this plan
        }
        if (!outcome.equals(mine)) {
            String why = "the proposal was already " + outcome;
            planner.settle(p, s, inv, b, op, "refused", why, e, i, releases);
            p.answer = o -> Answers.of(Status.refused).operation(opId).reason(why).debt(Planner.debt(p, o))
                    .proposal(Planner.proposalView(regOpId, after)).build();
            return p;
        }
        planner.settle(p, s, inv, b, op, "completed", null, e, i, releases);
        // applied: an approval is this operation's when it created the approval whose uid opened the
        // gate; a refusal is this invocation's when its own gate CAS retired the gate
        p.answer = o -> Answers.completed(opId, approve ? opId.equals(decidedBy) : o.tags().containsKey("gate-retire"))
                .gateRevision(approve ? o.tags().get("gate-open") : null)
                .debt(Planner.debt(p, o)).proposal(Planner.proposalView(regOpId, after)).build();
        return p;
    }

    Plan revoke(Invocation inv, Snapshot s, Planner.Bound b, HostRequest.Revoke r) {
        String e = r.endpoint();
        String i = r.instanceId();
        String opId = b.operationId();
        Target t = Target.read(s, e, i);
        Discovery.Seen asgSeen = t.prop() == null ? null : Planner.live(s, Rows.asg(t.prop().owner(), e, i));
        Rows.Assignment asg = asgSeen == null ? null : s.row(asgSeen.key(), Rows.Assignment.class);
        if (b.terminal()) {
            return planner.stored(s, b, o -> terminalAnswer(b.op(), opId, o, "fence").denyNew(asg == null ? null
                    : o.tags().containsKey("fence") ? gateEvidence(e, i, asg.uid())
                    : asg.state().equals("fenced") ? DenyNew.LANDED : null).build());
        }
        if (!t.visibleTo(inv.owner()) || asg == null) {
            return planner.refuse(inv, s, b, e, i, "no approved instance");
        }
        Plan p = planner.begin(inv, s, b, e, i);
        if (p.answer != null) {
            return p;
        }
        Rows.Operation op = planner.open(inv, b, e, i);
        boolean landed = asg.state().equals("fenced") && !inv.wrote.containsKey("fence");
        if (asg.state().equals("active")) {
            p.cas(asgSeen, new Rows.Assignment(Rows.V, asg.uid(), "fenced"), "fence");
        }
        Rows.Gate gate = t.gate();
        if (asg.uid().equals(gate.assignment()) && !gate.state().equals("retired")) {
            p.cas(t.gateSeen(), gate.to("retired", gate.assignment()), "gate-retire");
        }
        planner.settle(p, s, inv, b, op, "completed", null, e, i, List.of(r.requestId()));
        p.answer = o -> Answers.completed(opId, o.tags().containsKey("fence"))
                .denyNew(landed ? DenyNew.LANDED : gateEvidence(e, i, asg.uid())).debt(Planner.debt(p, o)).build();
        return p;
    }

    /** The deny-new evidence of a gate read after the fence: unknown when it failed or names another assignment. */
    private DenyNew gateEvidence(String endpoint, String instanceId, String uid) {
        try {
            hooks.get().beforeGateRead(endpoint, instanceId);
            Discovery.Seen seen = discovery.read(Rows.gate(endpoint, instanceId));
            Rows.Gate gate = seen.present() ? Rows.read(seen.data(), Rows.Gate.class, seen.key()) : null;
            if (gate == null || !uid.equals(gate.assignment())) {
                return DenyNew.UNKNOWN;
            }
            return gate.state().equals("retired") ? DenyNew.IN_EFFECT : DenyNew.UNKNOWN;
        } catch (RuntimeException e) {
            return DenyNew.UNKNOWN;
        }
    }
}
