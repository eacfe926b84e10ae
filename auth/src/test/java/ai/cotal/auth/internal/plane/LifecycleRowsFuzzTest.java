package ai.cotal.auth.internal.plane;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.Lifecycles;
import ai.cotal.auth.fuzz.Fuzz;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The lifecycle records as stored (SPEC §14.1), fuzzed from what the plane writes: heads
 * {@code lifecycle.head.<owner>.<actor>}, operations {@code lifecycle.op.<opId>} and the operation
 * keys a boot scan reads. Each input parses or is a typed refusal ({@code data-loss}).
 */
class LifecycleRowsFuzzTest {
    private static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";
    private static final String UID = "abcdefghijklmnopqrstuvwxyz";
    private static final String AT = "2026-11-30T00:00:00Z";

    private static void expectClean(Fuzz.Report report) {
        System.out.println("fuzz " + report);
        assertEquals(List.of(), report.failures(), report.toString());
    }

    @Test
    void heads() {
        String interactive = Lifecycles.interactiveRetirementOpId(UID);
        String managed = Lifecycles.managedRetirementOpId(UID);
        List<byte[]> seeds = List.of(
                LifecycleRows.write(new Lifecycles.Head(Principal.of(OWNER, "laptop"), ActorRow.Kind.INTERACTIVE, new LifecycleUid(UID),
                        Lifecycles.State.ACTIVE, Optional.empty(), AT)),
                LifecycleRows.write(new Lifecycles.Head(Principal.of(OWNER, "laptop"), ActorRow.Kind.INTERACTIVE, new LifecycleUid(UID),
                        Lifecycles.State.RETIRING, Optional.of(interactive), AT)),
                LifecycleRows.write(new Lifecycles.Head(Principal.of(OWNER, "laptop"), ActorRow.Kind.MANAGED, new LifecycleUid(UID),
                        Lifecycles.State.RETIRED, Optional.of(managed), AT)));
        seeds.forEach(seed -> LifecycleRows.parseHead(OWNER, "laptop", seed)); // the seeds parse: mutants start valid
        expectClean(Fuzz.run("lifecycle-head", seeds, input -> LifecycleRows.parseHead(OWNER, "laptop", input)));
    }

    @Test
    void operations() {
        String interactive = Lifecycles.interactiveRetirementOpId(UID);
        String managed = Lifecycles.managedRetirementOpId(UID);
        List<byte[]> seeds = List.of(
                LifecycleRows.write(new LifecycleRows.Op(interactive, ActorRow.Kind.INTERACTIVE, OWNER, "laptop", UID,
                        false, AT), null),
                LifecycleRows.write(new LifecycleRows.Op(interactive, ActorRow.Kind.INTERACTIVE, OWNER, "laptop", UID,
                        true, AT), "2026-11-30T00:01:00Z"));
        seeds.forEach(seed -> LifecycleRows.parseOp(interactive, seed)); // the seeds parse: mutants start valid
        expectClean(Fuzz.run("lifecycle-op", seeds, input -> LifecycleRows.parseOp(interactive, input)));
        List<byte[]> managedSeeds = List.of(LifecycleRows.write(new LifecycleRows.Op(managed, ActorRow.Kind.MANAGED, OWNER,
                "agent", UID, false, AT), null));
        LifecycleRows.parseOp(managed, managedSeeds.get(0));
        expectClean(Fuzz.run("lifecycle-op-managed", managedSeeds, input -> LifecycleRows.parseOp(managed, input)));
    }

    @Test
    void operationKeysOfABootScan() {
        expectClean(Fuzz.run("lifecycle-op-key", Fuzz.utf8(LifecycleRows.opKey(Lifecycles.interactiveRetirementOpId(UID))),
                input -> LifecycleRows.opIdOf(new String(input, StandardCharsets.UTF_8))));
    }
}
