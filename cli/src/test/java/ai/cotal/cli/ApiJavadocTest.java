package ai.cotal.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.ModifiersTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.DocTrees;
import com.sun.source.util.JavacTask;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.lang.model.element.Modifier;
import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Javadoc of the SDK's exported packages is there (the compile's doclint checks the comments
 * that exist: links, tags, HTML; docs/architecture.md): every public type carries a comment, and
 * so does every public member (method, constructor, field, enum constant), but for the members
 * counted in {@link #UNDOCUMENTED_MEMBERS}, a number per module that only shrinks. Reads the SDK
 * modules' main sources, parsed only; the internal packages are not API.
 */
class ApiJavadocTest {
    private static final List<String> MODULES = List.of("core", "workspace", "signer", "service-host", "auth");

    /**
     * Public members of exported packages still without a comment, per module. A new undocumented
     * member fails, and so does a documented one that leaves the number standing.
     */
    static final Map<String, Integer> UNDOCUMENTED_MEMBERS = Map.of(
            "core", 129, "workspace", 0, "signer", 10, "service-host", 38, "auth", 123);

    private static final List<String> TYPES = new ArrayList<>();
    private static final Map<String, List<String>> MEMBERS = new TreeMap<>();

    @BeforeAll
    static void parse() throws IOException {
        Map<Path, String> sources = new LinkedHashMap<>();
        for (String module : MODULES) {
            MEMBERS.put(module, new ArrayList<>());
            try (Stream<Path> files = Files.walk(Path.of("..", module, "src", "main", "java"))) {
                files.filter(ApiJavadocTest::exported).forEach(file -> sources.put(file.toAbsolutePath().normalize(), module));
            }
        }
        assertTrue(sources.size() > 100, "the SDK's sources are found from the cli module: " + sources.size());
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        try (StandardJavaFileManager files = compiler.getStandardFileManager(null, null, null)) {
            JavacTask task = (JavacTask) compiler.getTask(null, files, null, List.of("-proc:none"), null,
                    files.getJavaFileObjectsFromPaths(sources.keySet()));
            DocTrees docs = DocTrees.instance(task);
            for (CompilationUnitTree unit : task.parse()) {
                List<String> members = MEMBERS.get(sources.get(Path.of(unit.getSourceFile().toUri()).toAbsolutePath().normalize()));
                new TreePathScanner<Void, Void>() {
                    @Override
                    public Void visitClass(ClassTree type, Void unused) {
                        if (visible(getCurrentPath()) && docs.getDocCommentTree(getCurrentPath()) == null) {
                            TYPES.add(name(unit, getCurrentPath()));
                        }
                        return super.visitClass(type, unused);
                    }

                    @Override
                    public Void visitMethod(MethodTree method, Void unused) {
                        boolean override = method.getModifiers().getAnnotations().stream()
                                .anyMatch(a -> a.getAnnotationType().toString().equals("Override"));
                        if (!override && visible(getCurrentPath()) && docs.getDocCommentTree(getCurrentPath()) == null) {
                            members.add(name(unit, getCurrentPath().getParentPath()) + "." + method.getName());
                        }
                        return null;
                    }

                    @Override
                    public Void visitVariable(VariableTree field, Void unused) {
                        ClassTree owner = (ClassTree) getCurrentPath().getParentPath().getLeaf();
                        boolean component = owner.getKind() == Tree.Kind.RECORD
                                && !field.getModifiers().getFlags().contains(Modifier.STATIC);
                        if (!component && visible(getCurrentPath()) && docs.getDocCommentTree(getCurrentPath()) == null) {
                            members.add(name(unit, getCurrentPath().getParentPath()) + "." + field.getName());
                        }
                        return null;
                    }
                }.scan(unit, null);
            }
        }
    }

    @Test
    void everyPublicTypeOfAnExportedPackageHasAComment() {
        assertEquals(List.of(), TYPES, "public types of exported packages without a Javadoc comment");
    }

    @Test
    void publicMembersWithoutACommentOnlyGetFewer() {
        Map<String, Integer> counts = new TreeMap<>();
        MEMBERS.forEach((module, members) -> counts.put(module, members.size()));
        assertEquals(new TreeMap<>(UNDOCUMENTED_MEMBERS), counts, () -> "public members without a Javadoc comment"
                + " (lower UNDOCUMENTED_MEMBERS when one is documented): " + MEMBERS);
    }

    /**
     * Whether the declaration at {@code path} is visible to an embedder: public (or a member of an
     * interface, implicitly public unless private), and every type around it so too. Enum constants
     * are as visible as their enum.
     */
    private static boolean visible(TreePath path) {
        for (TreePath at = path; at.getLeaf() instanceof ClassTree || at.getLeaf() instanceof MethodTree
                || at.getLeaf() instanceof VariableTree; at = at.getParentPath()) {
            Tree parent = at.getParentPath().getLeaf();
            if (!(parent instanceof ClassTree) && !(parent instanceof CompilationUnitTree)) {
                return false; // a local or anonymous declaration
            }
            ModifiersTree modifiers = modifiers(at.getLeaf());
            boolean inInterface = parent instanceof ClassTree owner && (owner.getKind() == Tree.Kind.INTERFACE
                    || owner.getKind() == Tree.Kind.ANNOTATION_TYPE);
            boolean enumConstant = parent instanceof ClassTree owner && owner.getKind() == Tree.Kind.ENUM
                    && at.getLeaf() instanceof VariableTree && modifiers.getFlags().isEmpty();
            if (!modifiers.getFlags().contains(Modifier.PUBLIC) && !enumConstant
                    && !(inInterface && !modifiers.getFlags().contains(Modifier.PRIVATE))) {
                return false;
            }
        }
        return true;
    }

    private static ModifiersTree modifiers(Tree declaration) {
        if (declaration instanceof ClassTree type) {
            return type.getModifiers();
        }
        if (declaration instanceof MethodTree method) {
            return method.getModifiers();
        }
        return ((VariableTree) declaration).getModifiers();
    }

    private static boolean exported(Path file) {
        String path = file.toString().replace('\\', '/');
        return path.endsWith(".java") && !path.endsWith("module-info.java") && !path.endsWith("package-info.java")
                && !path.contains("/internal/");
    }

    private static String name(CompilationUnitTree unit, TreePath path) {
        StringBuilder name = new StringBuilder();
        for (TreePath at = path; at != null; at = at.getParentPath()) {
            if (at.getLeaf() instanceof ClassTree type) {
                name.insert(0, name.length() == 0 ? type.getSimpleName() : type.getSimpleName() + ".");
            }
        }
        return unit.getPackageName() + "." + name;
    }
}
