package ai.cotal.auth.internal.endpoint;

import ai.cotal.auth.internal.endpoint.Plan.Tag;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.servicehost.HostResult.DenyNew;
import ai.cotal.servicehost.HostResult.Status;
import ai.cotal.servicehost.Views.AssignmentState;
import ai.cotal.servicehost.Views.GateState;
import ai.cotal.servicehost.Views.OperationState;
import ai.cotal.servicehost.Views.ProposalState;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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
            return read(s, endpoint, instanceId, false);
        }

        /**
         * The instance; {@code decision}: the pass goes on to read the register operation the gate
         * names and the approval (a decide), so their reads are sent with the proposal's, once the
         * gate is read: an open gate implies its approval, created before it.
         */
        static Target read(Snapshot s, String endpoint, String instanceId, boolean decision) {
            Discovery.Seen gateSeen = s.seen(Rows.gate(endpoint, instanceId));
            Rows.Gate gate = s.row(gateSeen.key(), Rows.Gate.class);
            if (gate != null && decision) {
                s.send(Rows.prop(gate.operationId()), Rows.op(gate.operationId()), Rows.appr(endpoint, instanceId));
            }
            Discovery.Seen propSeen = gate == null ? null : Planner.live(s, Rows.prop(gate.operationId()));
            Rows.Proposal prop = gate == null ? null : s.row(propSeen.key(), Rows.Proposal.class);
            return new Target(gateSeen, gate, propSeen, prop);
        }

        /** Visible to {@code owner} (null: the operator sees every instance). */
        boolean visibleTo(String owner) {
            return prop != null && (owner == null || prop.owner().equals(owner));
        }
    }

    Plan register(Pass x, HostRequest.Register r) {
        Snapshot s = x.snapshot();
        Planner.Bound b = x.bound();
        String opId = x.operationId();
        if (b.terminal()) {
            Rows.Proposal prop = s.row(Rows.prop(opId), Rows.Proposal.class);
            return planner.stored(x, o -> terminal(x, opId, prop, o, null));
        }
        Target t = Target.read(s, r.endpoint(), r.instanceId());
        if (!b.bound() && (t.gateSeen().tombstone() || t.gate() != null)) {
            return Planner.denied("the instance is already registered");
        }
        Plan p = planner.begin(x);
        if (p.answer != null) {
            return p;
        }
        if (t.gate() != null && !t.gate().operationId().equals(opId)) {
            return registeredByAnother(p, x);
        }
        String propKey = Rows.prop(opId);
        // a fresh operation id has no proposal yet: only a bound request's is read
        Discovery.Seen propSeen = b.bound() ? Planner.live(s, propKey) : Discovery.Seen.absent(propKey);
        Rows.Proposal stored = b.bound() ? s.row(propKey, Rows.Proposal.class) : null;
        if (stored != null) {
            p.revisions.put(propKey, propSeen.revision());
        }
        Rows.Proposal prop = stored != null ? stored : new Rows.Proposal(Rows.V, r.endpoint(), r.instanceId(), x.owner(),
                r.contractDigest(), r.callerCeiling(), ProposalState.PENDING, null);
        if (stored == null) {
            p.create(propKey, prop, Tag.PROPOSAL);
        }
        if (t.gate() == null) {
            Planner.live(s, t.gateSeen().key());
            p.create(t.gateSeen().key(), revs -> Rows.write(new Rows.Gate(Rows.V, GateState.FROZEN, 1, revs.get(propKey),
                    opId, null, null)), Tag.GATE);
        }
        p.answer = o -> Answers.of(Status.PENDING).operation(opId).proposal(Planner.proposalView(opId, prop)).build();
        return p;
    }

    /** A bound register whose instance another request's gate holds: its proposal (if any) and operation are refused. */
    private Plan registeredByAnother(Plan p, Pass x) {
        String opId = x.operationId();
        String why = "another request registered the instance";
        Discovery.Seen orphanSeen = Planner.live(x.snapshot(), Rows.prop(opId));
        Rows.Proposal orphan = x.snapshot().row(orphanSeen.key(), Rows.Proposal.class);
        if (orphan != null && orphan.state() == ProposalState.PENDING) {
            // no proposal stays pending without a gate
            p.cas(orphanSeen, orphan.to(ProposalState.REFUSED, opId), Tag.PROPOSAL);
        }
        planner.settle(p, x, OperationState.REFUSED, why, List.of(x.requestId()));
        p.answer = o -> Answers.of(Status.REFUSED).operation(opId).reason(why).debt(Planner.debt(p, o)).build();
        return p;
    }

    /**
     * The answer of a terminal operation (a replay): {@code refused} with its reason, else
     * {@code completed stored}; {@code proposalOp} names the proposal shown, if any.
     */
    static HostResult terminal(Pass x, String proposalOp, Rows.Proposal prop, Plan.Outcome o, Tag appliedTag) {
        return terminalAnswer(x, o, appliedTag).gateRevision(o.tags().get(Tag.GATE_OPEN))
                .proposal(prop == null || proposalOp == null ? null : Planner.proposalView(proposalOp, prop)).build();
    }

    /**
     * A terminal operation's answer: {@code refused} with its reason, else {@code completed}
     * ({@code applied} when this invocation wrote {@code appliedTag} in an earlier pass, since a
     * pass that lost a race after settling comes back here; {@code stored} otherwise).
     */
    static Answers terminalAnswer(Pass x, Plan.Outcome o, Tag appliedTag) {
        Rows.Operation op = x.bound().op();
        if (op.state() == OperationState.REFUSED) {
            return Answers.of(Status.REFUSED).operation(x.operationId()).reason(op.reason());
        }
        boolean applied = appliedTag != null && o.wrote(appliedTag);
        if (op.state() == OperationState.GRANTED && applied) {
            return Answers.of(Status.GRANTED).operation(x.operationId());
        }
        return Answers.completed(x.operationId(), applied);
    }

    /**
     * What a decide pass reads: the instance, its approval (when one was created), what its gate
     * already decided ({@code pending}: the gate is still frozen) and what this request decides.
     */
    private record Ruling(Target t, Discovery.Seen apprSeen, Rows.Approval appr, ProposalState decided,
            ProposalState mine) {
        static Ruling read(Pass x, Target t, boolean approve) {
            Discovery.Seen apprSeen = Planner.live(x.snapshot(), Rows.appr(x.slot().endpoint(), x.slot().instanceId()));
            Rows.Approval appr = x.snapshot().row(apprSeen.key(), Rows.Approval.class);
            return new Ruling(t, apprSeen, appr, gateDecision(t.gate()),
                    approve ? ProposalState.APPROVED : ProposalState.REFUSED);
        }

        /**
         * The gate is the one decision point: open (or retired after an approval) = approved,
         * retired without an assignment = refused, frozen = not decided yet.
         */
        private static ProposalState gateDecision(Rows.Gate gate) {
            return gate.state() == GateState.FROZEN ? ProposalState.PENDING
                    : gate.assignment() != null ? ProposalState.APPROVED : ProposalState.REFUSED;
        }

        boolean approve() {
            return mine == ProposalState.APPROVED;
        }

        /** The decision that stands: the gate's, else this request's (its gate write comes first). */
        ProposalState outcome() {
            return decided == ProposalState.PENDING ? mine : decided;
        }

        /** The operation the standing decision is credited to. */
        String decidedBy(String opId) {
            Rows.Proposal prop = t.prop();
            return outcome() == ProposalState.APPROVED ? (appr != null ? appr.approvedBy() : opId)
                    : prop.state() == ProposalState.REFUSED ? prop.decidedBy() : opId;
        }

        /** The assignment uid of an approval: the gate's once decided, else the stored approval's, else minted. */
        String uid(Invocation inv) {
            return decided != ProposalState.PENDING ? t.gate().assignment()
                    : appr != null ? appr.assignmentUid() : inv.mintedUid;
        }
    }

    Plan decide(Pass x, HostRequest.Decide r) {
        Target t = Target.read(x.snapshot(), r.endpoint(), r.instanceId(), true);
        String regOpId = t.gate() == null ? null : t.gate().operationId();
        boolean approve = r.decision() == HostRequest.Decision.APPROVE;
        if (x.bound().terminal()) {
            return planner.stored(x, o -> terminal(x, regOpId, t.prop(), o, approve ? Tag.GATE_OPEN : Tag.GATE_RETIRE));
        }
        if (!t.visibleTo(x.owner())) {
            return planner.refuse(x, "no such instance");
        }
        Plan p = planner.begin(x);
        if (p.answer != null) {
            return p;
        }
        Discovery.Seen regSeen = Planner.live(x.snapshot(), Rows.op(regOpId));
        Rows.Operation regOp = x.snapshot().row(regSeen.key(), Rows.Operation.class);
        Ruling v = Ruling.read(x, t, approve);
        if (v.decided() == ProposalState.PENDING) {
            decideAtGate(p, x, v);
        }
        if (v.outcome() == ProposalState.APPROVED) {
            assign(p, x, v);
        }
        Rows.Proposal after = followGate(p, x, v);
        List<String> releases = new ArrayList<>(List.of(r.requestId()));
        if (regOp != null) {
            settleRegistration(p, x, v, regSeen, regOp);
            releases.add(regOp.requestId()); // terminal now, or made terminal by this plan
        }
        return settleDecision(p, x, v, after, releases);
    }

    /** The gate still frozen: this request decides it, creating the approval first when it approves. */
    private static void decideAtGate(Plan p, Pass x, Ruling v) {
        Target t = v.t();
        if (!v.approve()) {
            p.cas(t.gateSeen(), t.gate().to(GateState.RETIRED, null, null), Tag.GATE_RETIRE);
            return;
        }
        String uid = v.uid(x.inv());
        if (v.appr() == null) {
            Rows.Proposal prop = t.prop();
            byte[] canonical = Rows.write(prop.to(ProposalState.PENDING, null));
            String digest = Invocation.sha256((new String(canonical, StandardCharsets.UTF_8) + "\napprove")
                    .getBytes(StandardCharsets.UTF_8));
            p.create(v.apprSeen().key(), new Rows.Approval(Rows.V, digest, prop.callerCeiling(), t.gate().operationId(),
                    uid, x.operationId()), Tag.APPROVAL);
        }
        p.cas(t.gateSeen(), t.gate().to(GateState.OPEN, uid, null), Tag.GATE_OPEN);
    }

    /** An approval stands: the owner's assignment of the instance exists, active. */
    private static void assign(Plan p, Pass x, Ruling v) {
        Discovery.Seen asgSeen = Planner.live(x.snapshot(), Rows.asg(v.t().prop().owner(), x.slot().endpoint(),
                x.slot().instanceId()));
        if (!asgSeen.present()) {
            p.create(asgSeen.key(), new Rows.Assignment(Rows.V, v.uid(x.inv()), AssignmentState.ACTIVE, null), Tag.ASSIGN);
        }
    }

    /** The proposal follows the gate, repairing a losing decision's write; the proposal as it ends. */
    private static Rows.Proposal followGate(Plan p, Pass x, Ruling v) {
        Rows.Proposal prop = v.t().prop();
        if (prop.state() == v.outcome()) {
            return prop;
        }
        Rows.Proposal after = prop.to(v.outcome(), v.decidedBy(x.operationId()));
        p.cas(v.t().propSeen(), after, Tag.PROPOSAL);
        return after;
    }

    /** The register operation settles with the decision that stands (unless already terminal). */
    private static void settleRegistration(Plan p, Pass x, Ruling v, Discovery.Seen regSeen, Rows.Operation regOp) {
        if (regOp.terminal()) {
            return;
        }
        boolean approved = v.outcome() == ProposalState.APPROVED;
        p.cas(regSeen, regOp.settle(approved ? OperationState.COMPLETED : OperationState.REFUSED,
                List.of(regOp.requestId()), approved ? null : "the owner refused the proposal", x.now()), Tag.REGISTER);
    }

    /**
     * This decide settles: {@code refused} when the other decision stands, else {@code completed},
     * {@code applied} exactly when this invocation's own gate CAS decided the gate (opened it for an
     * approval, retired it for a refusal), so an approval's {@code applied} always carries the
     * {@code approvedGateRevision} it observed; a replay that only finishes the later steps of a
     * decision an earlier invocation wrote answers {@code stored}.
     */
    private Plan settleDecision(Plan p, Pass x, Ruling v, Rows.Proposal after, List<String> releases) {
        String opId = x.operationId();
        String regOpId = v.t().gate().operationId();
        if (v.outcome() != v.mine()) {
            String why = "the proposal was already " + v.outcome().wire();
            planner.settle(p, x, OperationState.REFUSED, why, releases);
            p.answer = o -> Answers.of(Status.REFUSED).operation(opId).reason(why).debt(Planner.debt(p, o))
                    .proposal(Planner.proposalView(regOpId, after)).build();
            return p;
        }
        planner.settle(p, x, OperationState.COMPLETED, null, releases);
        boolean approve = v.approve();
        p.answer = o -> Answers.completed(opId, o.wrote(approve ? Tag.GATE_OPEN : Tag.GATE_RETIRE))
                .gateRevision(approve ? o.tags().get(Tag.GATE_OPEN) : null)
                .debt(Planner.debt(p, o)).proposal(Planner.proposalView(regOpId, after)).build();
        return p;
    }

    Plan revoke(Pass x, HostRequest.Revoke r) {
        String e = r.endpoint();
        String i = r.instanceId();
        String opId = x.operationId();
        Target t = Target.read(x.snapshot(), e, i);
        Discovery.Seen asgSeen = t.prop() == null ? null : Planner.live(x.snapshot(), Rows.asg(t.prop().owner(), e, i));
        Rows.Assignment asg = asgSeen == null ? null : x.snapshot().row(asgSeen.key(), Rows.Assignment.class);
        if (x.bound().terminal()) {
            return planner.stored(x, o -> terminalAnswer(x, o, Tag.FENCE).denyNew(asg == null ? null
                    : o.wrote(Tag.FENCE) ? gateEvidence(e, i, asg.uid())
                    : asg.state() == AssignmentState.FENCED ? DenyNew.LANDED : null).build());
        }
        if (!t.visibleTo(x.owner()) || asg == null) {
            return planner.refuse(x, "no approved instance");
        }
        Plan p = planner.begin(x);
        if (p.answer != null) {
            return p;
        }
        boolean landed = asg.state() == AssignmentState.FENCED && !x.inv().wrote.containsKey(Tag.FENCE);
        if (asg.state() == AssignmentState.ACTIVE) {
            p.cas(asgSeen, new Rows.Assignment(Rows.V, asg.uid(), AssignmentState.FENCED, x.inv().auditId()),
                    Tag.FENCE);
        }
        Rows.Gate gate = t.gate();
        if (asg.uid().equals(gate.assignment()) && gate.state() != GateState.RETIRED) {
            p.cas(t.gateSeen(), gate.to(GateState.RETIRED, gate.assignment(), x.inv().auditId()), Tag.GATE_RETIRE);
        }
        planner.settle(p, x, OperationState.COMPLETED, null, List.of(r.requestId()));
        p.answer = o -> Answers.completed(opId, o.wrote(Tag.FENCE))
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
            return gate.state() == GateState.RETIRED ? DenyNew.IN_EFFECT : DenyNew.UNKNOWN;
        } catch (RuntimeException e) {
            return DenyNew.UNKNOWN;
        }
    }
}
