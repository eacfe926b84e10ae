package ai.cotal.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.util.DocTrees;
import com.sun.source.util.JavacTask;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.lang.model.element.Modifier;
import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * Every public type of an exported package carries a Javadoc comment (the compile's doclint checks
 * the comments that exist: links, tags, HTML; docs/architecture.md). Reads the SDK modules' main
 * sources, parsed only; the internal packages are not API.
 */
class ApiJavadocTest {
    private static final List<String> MODULES = List.of("core", "workspace", "signer", "service-host", "auth");

    @Test
    void everyPublicTypeOfAnExportedPackageHasAComment() throws IOException {
        List<Path> sources = new ArrayList<>();
        for (String module : MODULES) {
            try (Stream<Path> files = Files.walk(Path.of("..", module, "src", "main", "java"))) {
                files.filter(ApiJavadocTest::exported).forEach(sources::add);
            }
        }
        assertTrue(sources.size() > 100, "the SDK's sources are found from the cli module: " + sources.size());
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        try (StandardJavaFileManager files = compiler.getStandardFileManager(null, null, null)) {
            JavacTask task = (JavacTask) compiler.getTask(null, files, null, List.of("-proc:none"), null,
                    files.getJavaFileObjectsFromPaths(sources));
            DocTrees docs = DocTrees.instance(task);
            List<String> undocumented = new ArrayList<>();
            for (CompilationUnitTree unit : task.parse()) {
                new TreePathScanner<Void, Void>() {
                    @Override
                    public Void visitClass(ClassTree type, Void unused) {
                        if (type.getModifiers().getFlags().contains(Modifier.PUBLIC)
                                && docs.getDocCommentTree(getCurrentPath()) == null) {
                            undocumented.add(name(unit, getCurrentPath()));
                        }
                        return super.visitClass(type, unused);
                    }
                }.scan(unit, null);
            }
            assertEquals(List.of(), undocumented, "public types of exported packages without a Javadoc comment");
        }
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
