package ai.cotal.auth.internal.endpoint;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.servicehost.Views;
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
            return instances.register(inv, s, bound, reg);
        } else if (r instanceof HostRequest.Decide decide) {
            return instances.decide(inv, s, bound, decide);
        } else if (r instanceof HostRequest.Revoke revoke) {
            return instances.revoke(inv, s, bound, revoke);
        } else if (r instanceof HostRequest.NameBind bind) {
            return policies.nameBind(inv, s, bound, bind);
        } else if (r instanceof HostRequest.CallerGrant grant) {
            return policies.callerGrant(inv, s, bound, grant);
        } else if (r instanceof HostRequest.CallerRevoke revoke) {
            return policies.callerRevoke(inv, s, bound, revoke);
        }
        throw new IllegalArgumentException("not a mutating kind: " + r.kind());
    }

    String now() {
        return clock.instant().toString();
    }

    /** A plan of a request that can never bind, or whose target is gone before binding: nothing written. */
    static Plan denied(String reason) {
        return Plan.answer(null, false, Answers.denied(reason));
    }

    /**
     * Bind, admit (instance kinds) and intend. When the instance is full the plan ends with the
     * operation created terminal {@code refused} and {@link Plan#answer} set.
     */
    Plan begin(Invocation inv, Snapshot s, Bound b, String endpoint, String instanceId) {
        Plan p = new Plan();
        p.operationId = b.operationId();
        p.bound = b.bound();
        String rid = inv.request.requestId();
        if (!b.bound()) {
            p.create(Rows.req(rid), new Rows.Binding(Rows.V, rid, inv.request.kind(), inv.digest, b.operationId(),
                    inv.granterId()), "bind");
        }
        if (b.op() == null) {
            if (endpoint != null) {
                Discovery.Seen capSeen = live(s, Rows.cap(endpoint, instanceId));
                Rows.Capacity cap = s.row(capSeen.key(), Rows.Capacity.class);
                List<String> held = cap == null ? List.of() : cap.held();
                long admitted = cap == null ? 0 : cap.admitted();
                // the operator's revoke is never refused for capacity: an owner cannot make an instance unrevocable
                boolean exempt = inv.request instanceof HostRequest.Revoke && inv.owner() == null;
                if (!held.contains(rid)) {
                    if (admitted >= Rows.CAPACITY && !exempt) {
                        String why = "the instance has admitted its " + Rows.CAPACITY + " distinct requests";
                        p.create(Rows.op(b.operationId()), new Rows.Operation(Rows.V, inv.request.kind(), rid, endpoint,
                                instanceId, "refused", List.of(), why, now(), now()), "intend");
                        p.answer = o -> Answers.of(HostResult.Status.refused).operation(b.operationId()).reason(why).build();
                        return p;
                    }
                    List<String> next = new ArrayList<>(held);
                    next.add(rid);
                    p.put(capSeen, new Rows.Capacity(Rows.V, admitted + 1, next), "admit");
                }
            }
            p.create(Rows.op(b.operationId()), opened(inv, endpoint, instanceId), "intend");
        }
        return p;
    }

    /** The open operation of a bound request: the stored one, or the one {@link #begin} creates. */
    Rows.Operation open(Invocation inv, Bound b, String endpoint, String instanceId) {
        return b.op() != null ? b.op() : opened(inv, endpoint, instanceId);
    }

    /**
     * A target that is absent, foreign or no longer fit: {@code denied} with nothing written when
     * the request is unbound; a bound request settles {@code refused} (releasing its slot).
     */
    Plan refuse(Invocation inv, Snapshot s, Bound b, String endpoint, String instanceId, String why) {
        if (!b.bound()) {
            return denied(why);
        }
        Plan p = begin(inv, s, b, endpoint, instanceId);
        if (p.answer != null) {
            return p;
        }
        settle(p, s, inv, b, open(inv, b, endpoint, instanceId), "refused", why, endpoint, instanceId,
                endpoint == null ? List.of() : List.of(inv.request.requestId()));
        p.answer = o -> Answers.of(HostResult.Status.refused).operation(b.operationId()).reason(why)
                .debt(debt(p, o)).build();
        return p;
    }

    /** The operation as this plan leaves it open: the stored one, or the one {@link #begin} creates. */
    Rows.Operation opened(Invocation inv, String endpoint, String instanceId) {
        String now = now();
        return new Rows.Operation(Rows.V, inv.request.kind(), inv.request.requestId(), endpoint, instanceId, "open",
                List.of(), null, now, now);
    }

    /**
     * Settle: CAS the operation terminal (its debt = the releases it owes), then CAS the capacity to
     * release them. {@code op} is the open operation (stored or created by this plan).
     */
    void settle(Plan p, Snapshot s, Invocation inv, Bound b, Rows.Operation op, String state, String reason,
            String endpoint, String instanceId, List<String> releases) {
        p.cas(b.opSeen(), op.settle(state, releases, reason, now()), "settle");
        release(p, s, endpoint, instanceId, releases, inv.request.requestId());
    }

    /** CAS the capacity to drop {@code releases}; the capacity as this plan leaves it is re-derived. */
    void release(Plan p, Snapshot s, String endpoint, String instanceId, List<String> releases, String admittedHere) {
        if (endpoint == null || releases.isEmpty()) {
            return;
        }
        Discovery.Seen capSeen = live(s, Rows.cap(endpoint, instanceId));
        Rows.Capacity cap = s.row(capSeen.key(), Rows.Capacity.class);
        List<String> held = new ArrayList<>(cap == null ? List.of() : cap.held());
        long admitted = cap == null ? 0 : cap.admitted();
        if (admittedHere != null && !held.contains(admittedHere) && p.keys().contains(capSeen.key())) {
            held.add(admittedHere); // admitted earlier in this plan
            admitted++;
        }
        List<String> owed = releases.stream().filter(held::contains).toList();
        if (owed.isEmpty()) {
            return;
        }
        held.removeAll(owed);
        p.cas(capSeen, new Rows.Capacity(Rows.V, admitted, held), "release");
        p.releases = owed;
    }

    /**
     * The answer of a request whose operation is already terminal, paying any release debt it still
     * owes: {@code stored} reads as "replay of a finished request".
     */
    Plan stored(Snapshot s, Bound b, java.util.function.Function<Plan.Outcome, HostResult> answer) {
        Plan p = new Plan();
        p.operationId = b.operationId();
        p.bound = true;
        Rows.Operation op = b.op();
        release(p, s, op.endpoint(), op.instanceId(), op.debt(), null);
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
        return o.wrote("release") ? List.of() : p.releases;
    }
}
