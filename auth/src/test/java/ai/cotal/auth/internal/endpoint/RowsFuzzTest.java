package ai.cotal.auth.internal.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.cotal.auth.fuzz.Fuzz;
import ai.cotal.servicehost.Views;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The service-endpoint records as stored (SPEC §13.1), fuzzed: each parses or is data-loss. */
class RowsFuzzTest {
    private static <T extends Rows.Versioned> void fuzz(String name, T seed, Class<T> type) {
        Fuzz.Report report = Fuzz.run("row-" + name, List.of(Rows.write(seed)), input -> Rows.read(input, type, "k"));
        System.out.println("fuzz " + report);
        assertEquals(List.of(), report.failures(), report.toString());
    }

    @Test
    void everyRecordKind() {
        String id = Rows.newId();
        fuzz("binding", new Rows.Binding(1, "req-0123456789abcdef", "decide", "sha256:" + "a".repeat(64), id, "operator",
                "ops@example.test"),
                Rows.Binding.class);
        fuzz("operation", new Rows.Operation(1, "decide", "req-0123456789abcdef", "weather", "abcdefghijklmnopqrstuvwxyz",
                Views.OperationState.COMPLETED, List.of("req-0123456789abcdef"), null, "2026-11-29T00:00:00Z", "2026-11-29T00:00:00Z",
                "ops@example.test"),
                Rows.Operation.class);
        fuzz("capacity", new Rows.Capacity(1, List.of("req-0123456789abcdef")), Rows.Capacity.class);
        fuzz("proposal", new Rows.Proposal(1, "weather", "abcdefghijklmnopqrstuvwxyz", "u_" + "a".repeat(26),
                "sha256:" + "c".repeat(64), List.of("ask"), Views.ProposalState.APPROVED, id),
                Rows.Proposal.class);
        fuzz("gate", new Rows.Gate(1, Views.GateState.RETIRED, 2, 7, id, Rows.newId(), "ops"), Rows.Gate.class);
        fuzz("approval", new Rows.Approval(1, "sha256:" + "d".repeat(64), List.of("ask"), id, Rows.newId(), id),
                Rows.Approval.class);
        fuzz("assignment", new Rows.Assignment(1, Rows.newId(), Views.AssignmentState.FENCED, "ops"), Rows.Assignment.class);
        fuzz("name", new Rows.NameBinding(1, "weather", "u_" + "a".repeat(26), "dns:x", "sha256:" + "e".repeat(64), "ops"),
                Rows.NameBinding.class);
        fuzz("grant", new Rows.CallerGrant(1, "u_" + "a".repeat(26), "phone", List.of("ask"), List.of("svc.appr.x@1"),
                Views.GrantState.ACTIVE), Rows.CallerGrant.class);
    }
}
