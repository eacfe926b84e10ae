package ai.cotal.auth.internal.endpoint;

import ai.cotal.auth.internal.endpoint.Plan.Tag;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.servicehost.HostResult.Status;
import ai.cotal.servicehost.Views;
import ai.cotal.servicehost.Views.OperationState;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * Plans one pass of a mutating invocation against a discovery snapshot (SPEC §13.1 write order):
 * bind, admit, intend, the kind's records, settle. The kind-specific parts live in
 * {@link InstancePlans} and {@link PolicyPlans}; this class holds the shared steps.
 */
final class Planner {
    private final Clock clock;
    private final InstancePlans instances;
    private final PolicyPlans policies;

    Planner(Clock clock, Discovery discovery, ai.cotal.auth.ActorLedger ledger, java.util.function.Supplier<Hooks> hooks) {
        this.clock = clock;
        this.instances = new InstancePlans(this, discovery, hooks);
        this.policies = new PolicyPlans(this, ledger);
    }

    /** The binding as discovered, with the operation it names (null when unbound). */
    record Bound(Rows.Binding binding, String operationId, Discovery.Seen opSeen, Rows.Operation op) {
        boolean bound() {
            return binding != null;
        }

        boolean terminal() {
            return op != null && op.terminal();
        }
    }

    Plan plan(Invocation inv, Snapshot s) {
        HostRequest.Mutating r = inv.request;
        s.send(firstReads(inv));
        Discovery.Seen bindingSeen = s.seen(Rows.req(r.requestId()));
        if (bindingSeen.tombstone()) {
            return Plan.answer(null, false, Answers.denied("the request id is closed: mint a new one"));
        }
        Rows.Binding binding = s.row(bindingSeen.key(), Rows.Binding.class);
        if (binding != null && (!binding.requestDigest().equals(inv.digest) || !binding.kind().equals(r.kind()))) {
            return Plan.answer(null, false, Answers.denied("the request id is bound to another request: mint a new one"));
        }
        if (binding != null && !binding.granter().equals(inv.granterId())) {
            return Plan.answer(null, false, Answers.denied("the request id is bound to another granter's request"));
        }
        String opId = binding != null ? binding.operationId() : inv.mintedOperation;
        // a freshly minted id has no history: only a bound request's operation is read
        Discovery.Seen opSeen = binding != null ? live(s, Rows.op(opId)) : Discovery.Seen.absent(Rows.op(opId));
        Rows.Operation op = binding != null ? s.row(opSeen.key(), Rows.Operation.class) : null;
        Bound bound = new Bound(binding, opId, opSeen, op);
        if (r instanceof HostRequest.Register reg) {
            return instances.register(pass(inv, s, bound, new Pass.Slot(reg.endpoint(), reg.instanceId())), reg);
        } else if (r instanceof HostRequest.Decide decide) {
            return instances.decide(pass(inv, s, bound, new Pass.Slot(decide.endpoint(), decide.instanceId())), decide);
        } else if (r instanceof HostRequest.Revoke revoke) {
            return instances.revoke(pass(inv, s, bound, new Pass.Slot(revoke.endpoint(), revoke.instanceId())), revoke);
        } else if (r instanceof HostRequest.NameBind bind) {
            return policies.nameBind(pass(inv, s, bound, Pass.Slot.NONE), bind);
        } else if (r instanceof HostRequest.CallerGrant grant) {
            return policies.callerGrant(pass(inv, s, bound, new Pass.Slot(grant.endpoint(), grant.instanceId())), grant);
        } else if (r instanceof HostRequest.CallerRevoke revoke) {
            return policies.callerRevoke(pass(inv, s, bound, new Pass.Slot(revoke.endpoint(), revoke.instanceId())), revoke);
        }
        throw new IllegalArgumentException("not a mutating kind: " + r.kind());
    }

    /**
     * The keys a pass of the request's kind reads first, known from the request alone: sent
     * together, so one round trip answers them. Only keys whose reading order no decision depends
     * on go together; the write order makes a key written later (the gate) imply the ones written
     * before it (the approval), so an approval is read only after the gate ({@link
     * InstancePlans.Target#read(Snapshot, String, String, boolean)}). Each stale answer still
     * meets its create-only or compare-and-set write, which then starts a new pass.
     */
    private static String[] firstReads(Invocation inv) {
        HostRequest.Mutating r = inv.request;
        String req = Rows.req(r.requestId());
        if (r instanceof HostRequest.Register reg) {
            return instanceReads(req, null, reg.endpoint(), reg.instanceId());
        } else if (r instanceof HostRequest.Decide d) {
            return instanceReads(req, inv.owner(), d.endpoint(), d.instanceId());
        } else if (r instanceof HostRequest.Revoke v) {
            return instanceReads(req, inv.owner(), v.endpoint(), v.instanceId());
        } else if (r instanceof HostRequest.CallerGrant g) {
            return instanceReads(req, inv.owner(), g.endpoint(), g.instanceId());
        } else if (r instanceof HostRequest.CallerRevoke v) {
            return new String[] {req, Rows.grant(v.endpoint(), v.instanceId(), v.grantId()),
                Rows.gate(v.endpoint(), v.instanceId()), Rows.cap(v.endpoint(), v.instanceId())};
        } else if (r instanceof HostRequest.NameBind n) {
            return new String[] {req, Rows.name(n.name())};
        }
        return new String[] {req};
    }

    /** The binding, the instance's gate and capacity, and {@code owner}'s assignment of it (null: none). */
    private static String[] instanceReads(String req, String owner, String endpoint, String instanceId) {
        String gate = Rows.gate(endpoint, instanceId);
        String cap = Rows.cap(endpoint, instanceId);
        return owner == null ? new String[] {req, gate, cap}
                : new String[] {req, gate, cap, Rows.asg(owner, endpoint, instanceId)};
    }

    private Pass pass(Invocation inv, Snapshot s, Bound bound, Pass.Slot slot) {
        return new Pass(inv, s, bound, slot, clock.instant().toString());
    }

    /** A plan of a request that can never bind, or whose target is gone before binding: nothing written. */
    static Plan denied(String reason) {
        return Plan.answer(null, false, Answers.denied(reason));
    }

    /**
     * Bind, admit (instance kinds) and, for a register, intend. When the instance is full the plan
     * ends with the operation created terminal {@code refused} and {@link Plan#answer} set.
     */
    Plan begin(Pass x) {
        Bound b = x.bound();
        Plan p = new Plan();
        p.operationId = b.operationId();
        p.bound = b.bound();
        if (!b.bound()) {
            p.create(Rows.req(x.requestId()), new Rows.Binding(Rows.V, x.requestId(), x.inv().request.kind(),
                    x.inv().digest, b.operationId(), x.inv().granterId(), x.inv().auditId()), Tag.BIND);
        }
        if (b.op() == null) {
            if (x.slot().endpoint() != null && !admit(p, x)) {
                return p;
            }
            // only a register's operation stays open past its pass; every other kind settles in the
            // pass that applies it, and its operation is created terminal there (settle)
            if (x.inv().request instanceof HostRequest.Register) {
                p.create(Rows.op(b.operationId()), opened(x), Tag.INTEND);
            }
        }
        return p;
    }

    /**
     * Admits the request to its instance's capacity: the instance holds its id until the operation
     * settles and releases it. An instance holding {@link Rows#CAPACITY} ids admits no new one: the
     * plan then creates the operation terminal {@code refused} owing nothing (it was never held),
     * answers so (no {@code debt}: the other requests' slots are their operations' debt, not this
     * one's), and this returns false. A decide is not admitted: it
     * rides its register's slot, which the instance holds until it is decided, and a full instance
     * never blocks the decision that releases a slot.
     */
    private boolean admit(Plan p, Pass x) {
        Pass.Slot slot = x.slot();
        Discovery.Seen capSeen = live(x.snapshot(), Rows.cap(slot.endpoint(), slot.instanceId()));
        Rows.Capacity cap = x.snapshot().row(capSeen.key(), Rows.Capacity.class);
        List<String> held = cap == null ? List.of() : cap.held();
        String rid = x.requestId();
        if (held.contains(rid)) {
            return true;
        }
        if (x.inv().request instanceof HostRequest.Decide) {
            return true; // a decide rides its register's slot, held until the instance is decided
        }
        // the operator's revoke is never refused for capacity: an owner cannot make an instance unrevocable
        boolean exempt = x.inv().request instanceof HostRequest.Revoke && x.owner() == null;
        if (held.size() >= Rows.CAPACITY && !exempt) {
            String why = "the instance holds " + Rows.CAPACITY + " requests in flight; retry once they settle";
            p.create(Rows.op(x.operationId()), new Rows.Operation(Rows.V, x.inv().request.kind(), rid, slot.endpoint(),
                    slot.instanceId(), OperationState.REFUSED, List.of(), why, x.now(), x.now(), x.inv().auditId()),
                    Tag.INTEND);
            p.answer = o -> Answers.of(Status.REFUSED).operation(x.operationId()).reason(why).build();
            return false;
        }
        List<String> next = new ArrayList<>(held);
        next.add(rid);
        p.put(capSeen, new Rows.Capacity(Rows.V, next), Tag.ADMIT);
        return true;
    }

    /** The open operation of a bound request: the stored one, or the one {@link #begin} creates. */
    Rows.Operation open(Pass x) {
        return x.bound().op() != null ? x.bound().op() : opened(x);
    }

    /**
     * A target that is absent, foreign or no longer fit: {@code denied} with nothing written when
     * the request is unbound; a bound request settles {@code refused} (releasing its slot).
     */
    Plan refuse(Pass x, String why) {
        if (!x.bound().bound()) {
            return denied(why);
        }
        Plan p = begin(x);
        if (p.answer != null) {
            return p;
        }
        settle(p, x, OperationState.REFUSED, why, x.slot().endpoint() == null ? List.of() : List.of(x.requestId()));
        p.answer = o -> Answers.of(Status.REFUSED).operation(x.operationId()).reason(why).debt(debt(p, o)).build();
        return p;
    }

    /** The operation {@link #begin} creates: {@code open}, owing nothing. */
    private static Rows.Operation opened(Pass x) {
        Pass.Slot slot = x.slot();
        return new Rows.Operation(Rows.V, x.inv().request.kind(), x.requestId(), slot.endpoint(), slot.instanceId(),
                OperationState.OPEN, List.of(), null, x.now(), x.now(), x.inv().auditId());
    }

    /**
     * Settle: write the operation {@code to} its terminal state, its debt = the releases it owes (a
     * CAS of a register's stored or intended operation; for every other kind, whose operation is
     * never stored open, a create at the discovered revision), then CAS the capacity to release them.
     */
    void settle(Plan p, Pass x, OperationState to, String reason, List<String> releases) {
        p.cas(x.bound().opSeen(), open(x).settle(to, releases, reason, x.now()), Tag.SETTLE);
        release(p, x, x.slot(), releases, x.requestId());
    }

    /** CAS {@code slot}'s capacity to drop {@code releases}; the capacity as this plan leaves it is re-derived. */
    private void release(Plan p, Pass x, Pass.Slot slot, List<String> releases, String admittedHere) {
        if (slot.endpoint() == null || releases.isEmpty()) {
            return;
        }
        Discovery.Seen capSeen = live(x.snapshot(), Rows.cap(slot.endpoint(), slot.instanceId()));
        Rows.Capacity cap = x.snapshot().row(capSeen.key(), Rows.Capacity.class);
        List<String> held = new ArrayList<>(cap == null ? List.of() : cap.held());
        if (admittedHere != null && !held.contains(admittedHere) && p.keys().contains(capSeen.key())) {
            held.add(admittedHere); // admitted earlier in this plan
        }
        List<String> owed = releases.stream().filter(held::contains).toList();
        if (owed.isEmpty()) {
            return;
        }
        held.removeAll(owed);
        p.cas(capSeen, new Rows.Capacity(Rows.V, held), Tag.RELEASE);
        p.releases = owed;
    }

    /**
     * The answer of a request whose operation is already terminal, paying any release debt it still
     * owes: {@code stored} reads as "replay of a finished request".
     */
    Plan stored(Pass x, java.util.function.Function<Plan.Outcome, HostResult> answer) {
        Plan p = new Plan();
        p.operationId = x.operationId();
        p.bound = true;
        Rows.Operation op = x.bound().op();
        release(p, x, new Pass.Slot(op.endpoint(), op.instanceId()), op.debt(), null);
        p.answer = answer;
        return p;
    }

    /** A key that is never deleted: a tombstone there is corruption, not absence. */
    static Discovery.Seen live(Snapshot s, String key) {
        Discovery.Seen seen = s.seen(key);
        if (seen.tombstone()) {
            throw new CotalException(ErrorCode.DATA_LOSS, "service endpoints: " + key
                    + " was deleted behind the host's back; it is closed");
        }
        return seen;
    }

    static Views.Proposal proposalView(String operationId, Rows.Proposal p) {
        return new Views.Proposal(operationId, p.endpoint(), p.instanceId(), p.owner(), p.contractDigest(), p.callerCeiling(),
                p.state());
    }

    /** The debt an outcome leaves: the releases planned but not written. */
    static List<String> debt(Plan p, Plan.Outcome o) {
        return o.wrote(Tag.RELEASE) ? List.of() : p.releases;
    }
}
