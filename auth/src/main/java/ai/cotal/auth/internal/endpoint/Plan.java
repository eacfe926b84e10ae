package ai.cotal.auth.internal.endpoint;

import ai.cotal.servicehost.HostResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * What one pass of an invocation will write, computed from one discovery snapshot: an ordered list
 * of create-only, compare-and-set and verify steps (SPEC §13.1 write order), and how to answer
 * once they are done. A plan without steps answers at once and writes nothing.
 */
final class Plan {
    enum Mode { CREATE, CAS, VERIFY }

    /**
     * What a write step does, in write order (SPEC §13.1). An answer asks whether this invocation
     * wrote a tag, over all its passes; the tags never reach the wire.
     */
    enum Tag {
        /** {@code svc.req}: the request id bound to its operation. */
        BIND,
        /** {@code svc.cap}: the request id admitted to its instance. */
        ADMIT,
        /** {@code svc.op}: the operation created. */
        INTEND,
        /** {@code svc.prop}: a proposal created, or moved to its decision. */
        PROPOSAL,
        /** {@code epgate}: a register's gate created frozen. */
        GATE,
        /** {@code svc.appr}: the approval created. */
        APPROVAL,
        /** {@code epgate}: an approval opened the gate. */
        GATE_OPEN,
        /** {@code epgate}: a refusal or a revoke retired the gate. */
        GATE_RETIRE,
        /** {@code svc.asg}: the assignment created active. */
        ASSIGN,
        /** {@code svc.op}: a decision settled the register operation. */
        REGISTER,
        /** {@code svc.asg}: a revoke fenced the assignment. */
        FENCE,
        /** {@code svc.name}: the name bound. */
        NAME,
        /** {@code svc.grant}: the caller grant created. */
        GRANT,
        /** {@code svc.grant}: the caller grant revoked. */
        REVOKE_GRANT,
        /** {@code svc.grantee}: the grantee index lists a new grant or drops a revoked one. */
        GRANTEE,
        /** {@code svc.op}: the operation made terminal. */
        SETTLE,
        /** {@code svc.cap}: the settled request ids released. */
        RELEASE
    }

    /** One write ({@code tag} null on a verify). {@code bytes} sees the revisions written so far by this plan. */
    record Step(String key, Mode mode, Function<Map<String, Long>, byte[]> bytes, Tag tag) {
    }

    /** What this invocation's executed steps produced, over all its passes: the revision each tag wrote. */
    record Outcome(Map<Tag, Long> tags) {
        boolean wrote(Tag tag) {
            return tags.containsKey(tag);
        }
    }

    final List<Step> steps = new ArrayList<>();
    final Map<String, Long> revisions = new HashMap<>();
    /** The operation this plan names, null when the request can never bind. */
    String operationId;
    /** True when the binding was already stored at discovery. */
    boolean bound;
    /** Request ids whose capacity release this plan owes (for debt when it cannot finish). */
    List<String> releases = List.of();
    Function<Outcome, HostResult> answer;

    static Plan answer(String operationId, boolean bound, HostResult result) {
        Plan plan = new Plan();
        plan.operationId = operationId;
        plan.bound = bound;
        plan.answer = outcome -> result;
        return plan;
    }

    void create(String key, Function<Map<String, Long>, byte[]> bytes, Tag tag) {
        steps.add(new Step(key, Mode.CREATE, bytes, tag));
    }

    void create(String key, Rows.Versioned row, Tag tag) {
        byte[] data = Rows.write(row);
        create(key, r -> data, tag);
    }

    /** Compare-and-set at {@code seen}'s revision (or at the revision an earlier step wrote). */
    void cas(Discovery.Seen seen, Rows.Versioned row, Tag tag) {
        revisions.putIfAbsent(seen.key(), seen.revision());
        byte[] data = Rows.write(row);
        steps.add(new Step(seen.key(), Mode.CAS, r -> data, tag));
    }

    /** A write of {@code key} that creates it when discovery found it fresh, else a CAS. */
    void put(Discovery.Seen seen, Rows.Versioned row, Tag tag) {
        if (seen.present()) {
            cas(seen, row, tag);
        } else {
            create(seen.key(), row, tag);
        }
    }

    /** Re-reads {@code seen}'s key right before the next step; a moved revision restarts the pass. */
    void verify(Discovery.Seen seen) {
        steps.add(new Step(seen.key(), Mode.VERIFY, r -> null, null));
        revisions.putIfAbsent(seen.key(), seen.revision());
    }

    /** The keys this plan writes: the scope its effect connection is granted. */
    Set<String> keys() {
        Set<String> keys = new LinkedHashSet<>();
        for (Step step : steps) {
            if (step.mode() != Mode.VERIFY) {
                keys.add(step.key());
            }
        }
        return keys;
    }
}
