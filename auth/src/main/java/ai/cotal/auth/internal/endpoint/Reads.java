package ai.cotal.auth.internal.endpoint;

import ai.cotal.auth.Granter;
import ai.cotal.core.CotalException;
import ai.cotal.servicehost.EndpointName;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.servicehost.Views;
import ai.cotal.servicehost.Views.AssignmentState;
import ai.cotal.servicehost.Views.ProposalState;
import ai.cotal.servicehost.Views.RegistrationState;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The reads (SPEC §13.1): no binding, no effect connection, discovery only. A missing target and
 * a foreign one both read absent ({@code denied}); a found one answers {@code completed stored}
 * with its view. Lists walk the stream's subject index in key order from an opaque cursor (the
 * last key returned, base64url), so every key present for the whole walk appears exactly once.
 */
final class Reads {
    private static final int DEFAULT_LIMIT = 50;

    private final Discovery discovery;

    Reads(Discovery discovery) {
        this.discovery = discovery;
    }

    HostResult read(Granter granter, HostRequest request) {
        String owner = granter instanceof Granter.Owner o ? o.owner() : null;
        Snapshot s = new Snapshot(discovery);
        if (request instanceof HostRequest.InstanceRead r) {
            Views.Instance view = owner == null ? null : instance(s, owner, r.endpoint(), r.instanceId());
            return view == null ? Answers.denied("no such instance") : found().instance(view).build();
        } else if (request instanceof HostRequest.InstanceList r) {
            if (owner == null) {
                return Answers.denied("instance lists are the owner's");
            }
            String prefix = "svc.asg." + owner + ".";
            Page page = page(prefix, r.cursor(), r.limit());
            List<Views.Instance> views = new ArrayList<>();
            for (String key : page.keys()) {
                String[] parts = key.substring(prefix.length()).split("\\.");
                String endpoint = parts.length == 2 ? endpointOf(parts[0]) : null;
                Views.Instance view = endpoint == null ? null : instance(s, owner, endpoint, parts[1]);
                if (view != null) {
                    views.add(view);
                }
            }
            return found().instances(views, page.next()).build();
        } else if (request instanceof HostRequest.ProposalRead r) {
            Rows.Proposal prop = s.row(Rows.prop(r.operationId()), Rows.Proposal.class);
            return prop == null || !visible(owner, prop) ? Answers.denied("no such proposal")
                    : found().proposal(Planner.proposalView(r.operationId(), prop)).build();
        } else if (request instanceof HostRequest.OperationRead r) {
            return operation(s, owner, r.operationId());
        } else if (request instanceof HostRequest.NameRead r) {
            Rows.NameBinding row = s.row(Rows.name(r.name()), Rows.NameBinding.class);
            return row == null ? Answers.denied("no such name") : found().name(PolicyPlans.nameView(r.name(), row)).build();
        } else if (request instanceof HostRequest.CallerRead r) {
            if (!ownsInstance(s, owner, r.endpoint(), r.instanceId())) {
                return Answers.denied("no such grant");
            }
            Rows.CallerGrant row = s.row(Rows.grant(r.endpoint(), r.instanceId(), r.grantId()), Rows.CallerGrant.class);
            return row == null ? Answers.denied("no such grant")
                    : found().grant(PolicyPlans.grantView(r.grantId(), r.endpoint(), r.instanceId(), row)).build();
        } else if (request instanceof HostRequest.CallerList r) {
            if (!ownsInstance(s, owner, r.endpoint(), r.instanceId())) {
                return Answers.denied("no such instance");
            }
            String prefix = Rows.grants(r.endpoint(), r.instanceId());
            Page page = page(prefix, r.cursor(), r.limit());
            List<Views.Grant> views = new ArrayList<>();
            for (String key : page.keys()) {
                Rows.CallerGrant row = s.row(key, Rows.CallerGrant.class);
                if (row != null) {
                    views.add(PolicyPlans.grantView(key.substring(prefix.length()), r.endpoint(), r.instanceId(), row));
                }
            }
            return found().grants(views, page.next()).build();
        }
        throw new IllegalArgumentException("not a read: " + request.kind());
    }

    /** The endpoint name a key token stands for; null for a key no host wrote. */
    private static String endpointOf(String token) {
        try {
            return EndpointName.fromToken(token);
        } catch (ai.cotal.servicehost.ContractException e) {
            return null;
        }
    }

    private static Answers found() {
        return Answers.of(HostResult.Status.COMPLETED).completion(HostResult.Completion.STORED);
    }

    private static boolean visible(String owner, Rows.Proposal prop) {
        return owner == null || prop.owner().equals(owner);
    }

    private static boolean ownsInstance(Snapshot s, String owner, String endpoint, String instanceId) {
        if (owner == null) {
            return false;
        }
        Rows.Gate gate = s.row(Rows.gate(endpoint, instanceId), Rows.Gate.class);
        Rows.Proposal prop = gate == null ? null : s.row(Rows.prop(gate.operationId()), Rows.Proposal.class);
        return prop != null && prop.owner().equals(owner);
    }

    /** {@code ServiceInstanceView} of the owner's instance; null when missing or foreign. */
    static Views.Instance instance(Snapshot s, String owner, String endpoint, String instanceId) {
        Discovery.Seen gateSeen = s.seen(Rows.gate(endpoint, instanceId));
        Rows.Gate gate = s.row(gateSeen.key(), Rows.Gate.class);
        Rows.Proposal prop = gate == null ? null : s.row(Rows.prop(gate.operationId()), Rows.Proposal.class);
        if (prop == null || !prop.owner().equals(owner)) {
            return null;
        }
        Rows.Approval appr = s.row(Rows.appr(endpoint, instanceId), Rows.Approval.class);
        Rows.Assignment asg = s.row(Rows.asg(owner, endpoint, instanceId), Rows.Assignment.class);
        RegistrationState state = asg != null && asg.state() == AssignmentState.FENCED ? RegistrationState.REVOKED
                : registration(prop.state());
        boolean approved = appr != null && appr.assignmentUid().equals(gate.assignment()); // the approval that decided
        return new Views.Instance(endpoint, instanceId, owner, state, approved ? appr.approvalDigest() : null,
                new Views.Gate(gate.state(), gateSeen.revision()), asg == null ? null : asg.state(), null);
    }

    private static RegistrationState registration(ProposalState state) {
        return switch (state) {
            case PENDING -> RegistrationState.PENDING;
            case APPROVED -> RegistrationState.APPROVED;
            case REFUSED -> RegistrationState.REFUSED;
        };
    }

    /** The operation with its authoritative debt: the releases it owes that its instance's capacity still holds. */
    private static HostResult operation(Snapshot s, String owner, String operationId) {
        Rows.Operation op = s.row(Rows.op(operationId), Rows.Operation.class);
        if (op == null) {
            return Answers.denied("no such operation");
        }
        boolean visible = op.instanceId() == null ? owner == null
                : owner == null || ownsInstance(s, owner, op.endpoint(), op.instanceId());
        if (!visible) {
            return Answers.denied("no such operation");
        }
        List<String> debt = List.of();
        if (op.instanceId() != null && !op.debt().isEmpty()) {
            Rows.Capacity cap = s.row(Rows.cap(op.endpoint(), op.instanceId()), Rows.Capacity.class);
            debt = cap == null ? List.of() : op.debt().stream().filter(cap.held()::contains).toList();
        }
        return found().operationView(new Views.Operation(operationId, op.kind(), op.requestId(), op.endpoint(),
                op.instanceId(), op.state(), debt, op.auditId())).build();
    }

    private record Page(List<String> keys, String next) {
    }

    private Page page(String prefix, String cursor, Integer limit) {
        String after = null;
        if (cursor != null) {
            try {
                after = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                throw CotalException.badRequest("cursor", "is not a cursor this host returned");
            }
            if (!after.startsWith(prefix)) {
                throw CotalException.badRequest("cursor", "is not a cursor of this list");
            }
        }
        int max = limit == null ? DEFAULT_LIMIT : limit;
        List<String> keys = new ArrayList<>();
        boolean more = false;
        for (String key : discovery.keys(prefix)) {
            if (after != null && key.compareTo(after) <= 0) {
                continue;
            }
            if (keys.size() == max) {
                more = true;
                break;
            }
            keys.add(key);
        }
        String next = more ? Base64.getUrlEncoder().withoutPadding().encodeToString(
                keys.get(keys.size() - 1).getBytes(StandardCharsets.UTF_8)) : null;
        return new Page(keys, next);
    }
}
