package ai.cotal.signer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ResolvedModule;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The signer artifact carries what a key-holding process needs and nothing of the network-facing
 * plane (SPEC §16): its module descriptor, as built, resolved against the jars Maven gives an
 * embedder of {@code cotal-signer} ({@code target/runtime.classpath}, written before the tests
 * run), reads no Jetty, Nimbus or Micrometer module, and no module beyond what core and
 * workspace read themselves.
 */
class SignerArtifactTest {
    private static final Pattern NETWORK_FACING = Pattern.compile(
            "org\\.eclipse\\.jetty.*|com\\.nimbusds.*|micrometer.*|io\\.micrometer.*");
    private static final Path CLASSES = Path.of("target", "classes");

    private static List<Path> runtimeClasspath() throws Exception {
        String listed = Files.readString(Path.of("target", "runtime.classpath"), StandardCharsets.UTF_8).strip();
        List<Path> entries = new ArrayList<>();
        for (String entry : listed.split(Pattern.quote(File.pathSeparator))) {
            entries.add(Path.of(entry));
        }
        return entries;
    }

    private static Set<String> resolved(List<Path> path, String root) {
        Configuration graph = Configuration.resolve(ModuleFinder.of(path.toArray(Path[]::new)),
                List.of(ModuleLayer.boot().configuration()), ModuleFinder.of(), Set.of(root));
        return graph.modules().stream().map(ResolvedModule::name).collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void theDescriptorExportsOnePackageAndRequiresCoreAndWorkspaceButNoNetworkFacingModule() throws Exception {
        ModuleDescriptor descriptor = ModuleFinder.of(CLASSES).find("ai.cotal.signer").orElseThrow().descriptor();
        assertEquals(Set.of("ai.cotal.signer"), descriptor.exports().stream().map(ModuleDescriptor.Exports::source)
                .collect(Collectors.toSet()), "one API package");
        Set<String> requires = descriptor.requires().stream().map(ModuleDescriptor.Requires::name)
                .collect(Collectors.toCollection(TreeSet::new));
        assertTrue(requires.containsAll(Set.of("ai.cotal.core", "ai.cotal.workspace")), requires.toString());
        requires.forEach(r -> assertFalse(NETWORK_FACING.matcher(r).matches(), "requires " + r));
    }

    @Test
    void theResolvedModulesHoldNoJettyNimbusOrMicrometer() throws Exception {
        List<Path> path = new ArrayList<>(List.of(CLASSES));
        List<Path> jars = runtimeClasspath();
        path.addAll(jars);
        for (Path jar : jars) {
            String name = jar.getFileName().toString();
            assertFalse(name.matches("(jetty|nimbus|micrometer).*"), "an embedder of cotal-signer gets " + name);
        }
        Set<String> signer = resolved(path, "ai.cotal.signer");
        assertTrue(signer.containsAll(Set.of("ai.cotal.signer", "ai.cotal.core", "ai.cotal.workspace")), signer.toString());
        signer.forEach(m -> assertFalse(NETWORK_FACING.matcher(m).matches(), "the signer's module graph holds " + m));
        Set<String> beyond = new TreeSet<>(signer);
        beyond.removeAll(resolved(path, "ai.cotal.core"));
        beyond.removeAll(resolved(path, "ai.cotal.workspace"));
        assertEquals(Set.of("ai.cotal.signer"), beyond, "modules beyond core's and workspace's (the JDK's are the parent's)");
    }
}
