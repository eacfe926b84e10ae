package ai.cotal.cli;

import ai.cotal.auth.records.ManagerRecords;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceRule;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The boundary of every SDK module, checked on its main classes (cli is the module that sees them
 * all; docs/architecture.md, "API versus internal"):
 *
 * <ul>
 *   <li>no package cycle inside a module;
 *   <li>no type of an exported package depends on an implementation package (an {@code internal}
 *       package other than core's shared codecs, {@link #SUPPORT}) except the module's one adapter,
 *       the type whose static door hands out the implementation behind its interface;
 * </ul>
 */
class ArchitectureTest {

    /** A module: its root package and the one type of its API that may reach its implementation. */
    record Module(String name, String root, Set<String> adapters) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<Module> modules() {
        return List.of(
                new Module("core", "ai.cotal.core", Set.of()),
                new Module("workspace", "ai.cotal.workspace", Set.of()),
                new Module("signer", "ai.cotal.signer", Set.of()),
                new Module("service-host", "ai.cotal.servicehost", Set.of()),
                // AuthAuthorityPlane.open: the plane's one door, the implementation behind the facets
                new Module("auth", "ai.cotal.auth", Set.of("ai.cotal.auth.AuthAuthorityPlane")),
                new Module("cli", "ai.cotal.cli", Set.of()));
    }

    /**
     * Shared codecs, rules and helpers, which the SDK's modules use through qualified exports:
     * core's closed JSON, nkey encoding, row store, store names and leader reads, connected wait
     * and the SDK's self-signed credential, and the grants of the plane's own connections (which the
     * remote signer's catalogue admits by); auth's codecs of a space's secret documents (written by
     * provisioning, read by the plane and the stock service), its refusal-text rule (which the
     * callout's, the faces' and the state-file refusals apply) and its fair queue and workers
     * (which the callout and the admin listener run on). Not API, and no implementation of an API
     * type: they reach no implementation package, and the cycle rule keeps them below the packages
     * that use them.
     */
    static final Set<String> SUPPORT = Set.of("ai.cotal.core.internal.json", "ai.cotal.core.internal.keys",
            "ai.cotal.core.internal.kv", "ai.cotal.core.internal.connect", "ai.cotal.core.internal.grants",
            "ai.cotal.auth.internal.secrets", "ai.cotal.auth.internal.text", "ai.cotal.auth.internal.flow");

    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("ai.cotal.core", "ai.cotal.workspace", "ai.cotal.signer", "ai.cotal.servicehost", "ai.cotal.auth",
                    "ai.cotal.cli");

    private static JavaClasses of(Module module) {
        return MAIN.that(inside(module.root()));
    }

    private static DescribedPredicate<JavaClass> inside(String root) {
        return DescribedPredicate.describe("in " + root, c -> c.getPackageName().equals(root)
                || c.getPackageName().startsWith(root + "."));
    }

    private static boolean internal(String pkg) {
        return pkg.contains(".internal.") || pkg.endsWith(".internal");
    }

    private static final DescribedPredicate<JavaClass> IMPLEMENTATION = DescribedPredicate.describe(
            "an implementation package (internal, not a shared codec)",
            c -> internal(c.getPackageName()) && !SUPPORT.contains(c.getPackageName()));

    /**
     * Dependencies from an exported package into an implementation package that are still to be
     * removed (origin type, target package), as counted in docs/architecture.md. The list only
     * shrinks: a new dependency of this kind fails the build.
     */
    static final List<String> PENDING_BOUNDARY = List.of(
            "ai.cotal.auth.records.ManagerRecords -> ai.cotal.auth.internal.manager",
            "ai.cotal.auth.PlaneSettings -> ai.cotal.auth.internal.metrics",
            "ai.cotal.auth.exchange.ExchangeOptions -> ai.cotal.auth.internal.metrics",
            "ai.cotal.auth.exchange.ExchangeRoutes -> ai.cotal.auth.internal.metrics",
            "ai.cotal.auth.exchange.HttpFace -> ai.cotal.auth.internal.metrics",
            "ai.cotal.auth.exchange.MetricsFace -> ai.cotal.auth.internal.metrics",
            "ai.cotal.auth.exchange.TokenExchange -> ai.cotal.auth.internal.metrics",
            "ai.cotal.auth.service.ReplicaLanes -> ai.cotal.auth.internal.replica",
            "ai.cotal.auth.service.ServiceEndpointAdmission -> ai.cotal.auth.internal.connect",
            "ai.cotal.auth.service.ServiceEndpointAdmission -> ai.cotal.auth.internal.endpoint");

    /**
     * One package dependency of each package cycle still to be removed (besides the cycles that
     * {@link #PENDING_BOUNDARY} closes), as counted in docs/architecture.md. The list only shrinks.
     */
    static final List<String> PENDING_CYCLES = List.of(
            "ai.cotal.core.internal.keys -> ai.cotal.core.keys",
            "ai.cotal.core.trust -> ai.cotal.core.creds");

    @ParameterizedTest
    @MethodSource("modules")
    void noPackageCycles(Module module) {
        SliceRule rule = slices().matching("ai.cotal.(**)").as("packages of " + module.name())
                .should().beFreeOfCycles();
        for (String edge : PENDING_CYCLES) {
            rule = rule.ignoreDependency(inPackage(from(edge)), inPackage(to(edge)));
        }
        for (String edge : PENDING_BOUNDARY) {
            rule = rule.ignoreDependency(declaredIn(from(edge)), inPackage(to(edge)));
        }
        // the adapter's door is the one sanctioned edge from the API into the implementation,
        // which in turn implements the API's interfaces
        for (String adapter : module.adapters()) {
            rule = rule.ignoreDependency(declaredIn(adapter), IMPLEMENTATION);
        }
        rule.check(of(module));
    }

    @ParameterizedTest
    @MethodSource("modules")
    void apiReachesTheImplementationOnlyThroughTheAdapter(Module module) {
        classes().that(DescribedPredicate.describe("are in an exported package of " + module.name(),
                        c -> !internal(c.getPackageName()) && !module.adapters().contains(outermost(c).getName())))
                .should(notDependOnAnImplementationPackage())
                .allowEmptyShould(true)
                .check(of(module));
    }

    /** Every pending entry is a dependency the main code still has: a removed one leaves the list. */
    @Test
    void pendingEntriesAreStillThere() {
        for (String edge : PENDING_BOUNDARY) {
            assertTrue(MAIN.stream().filter(c -> outermost(c).getName().equals(from(edge)))
                    .flatMap(c -> c.getDirectDependenciesFromSelf().stream())
                    .anyMatch(d -> d.getTargetClass().getPackageName().equals(to(edge))), edge);
        }
        for (String edge : PENDING_CYCLES) {
            assertTrue(MAIN.stream().filter(c -> c.getPackageName().equals(from(edge)))
                    .flatMap(c -> c.getDirectDependenciesFromSelf().stream())
                    .anyMatch(d -> d.getTargetClass().getPackageName().equals(to(edge))), edge);
        }
    }

    private static ArchCondition<JavaClass> notDependOnAnImplementationPackage() {
        return new ArchCondition<>("not depend on " + IMPLEMENTATION.getDescription()) {
            @Override
            public void check(JavaClass origin, ConditionEvents events) {
                for (Dependency dependency : origin.getDirectDependenciesFromSelf()) {
                    JavaClass target = dependency.getTargetClass();
                    if (IMPLEMENTATION.test(target) && !PENDING_BOUNDARY.contains(
                            outermost(origin).getName() + " -> " + target.getPackageName())) {
                        events.add(SimpleConditionEvent.violated(dependency, dependency.getDescription()));
                    }
                }
            }
        };
    }

    @ParameterizedTest
    @MethodSource("modules")
    void sharedHelpersReachNoImplementation(Module module) {
        noClasses().that(DescribedPredicate.describe("are shared helpers", c -> SUPPORT.contains(c.getPackageName())))
                .should().dependOnClassesThat(IMPLEMENTATION)
                .allowEmptyShould(true)
                .check(of(module));
    }

    private static String from(String edge) {
        return edge.substring(0, edge.indexOf(" -> "));
    }

    private static String to(String edge) {
        return edge.substring(edge.indexOf(" -> ") + 4);
    }

    private static DescribedPredicate<JavaClass> inPackage(String pkg) {
        return DescribedPredicate.describe("in " + pkg, c -> c.getPackageName().equals(pkg));
    }

    private static DescribedPredicate<JavaClass> declaredIn(String type) {
        return DescribedPredicate.describe("declared in " + type, c -> outermost(c).getName().equals(type));
    }

    private static JavaClass outermost(JavaClass c) {
        JavaClass top = c;
        while (top.getEnclosingClass().isPresent()) {
            top = top.getEnclosingClass().get();
        }
        return top;
    }
}
