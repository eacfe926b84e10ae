package ai.cotal.examples.docs;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import com.sun.source.util.JavacTask;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Compiles snippets with the JDK's compiler against a class path, each snippet its own
 * compilation unit ({@link SnippetUnit}), all in one compiler run, and answers every error placed
 * on its page: {@code file:line: message} and the offending line.
 */
final class SnippetCompiler {
    private static final Pattern EXPORTS = Pattern.compile("^\\s*exports\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);

    /**
     * The packages every snippet imports on demand: each package an SDK module exports to everyone
     * (read from the modules' descriptors below {@code root}, so a new API package is imported
     * without a change here), the test artifact's packages, the JDK packages the pages use and
     * jnats' client package.
     */
    static List<String> defaultImports(Path root) throws IOException {
        List<String> packages = new ArrayList<>();
        try (Stream<Path> modules = Files.list(root)) {
            for (Path descriptor : modules.map(m -> m.resolve("src/main/java/module-info.java")).filter(Files::isRegularFile)
                    .sorted().toList()) {
                Matcher exports = EXPORTS.matcher(Files.readString(descriptor, StandardCharsets.UTF_8));
                while (exports.find()) {
                    packages.add(exports.group(1));
                }
            }
        }
        packages.addAll(List.of("ai.cotal.testbroker", "ai.cotal.testbroker.oidc", "io.nats.client", "java.io",
                "java.net", "java.net.http", "java.nio.charset", "java.nio.file", "java.time", "java.util",
                "java.util.concurrent"));
        return packages;
    }

    private SnippetCompiler() {
    }

    /**
     * Compiles {@code snippets} against {@code classPath}, class files into {@code out}; answers one
     * entry per error, empty when every snippet compiles.
     */
    static List<String> compile(List<JavaSnippet> snippets, List<String> defaultImports, String classPath, Path out)
            throws IOException {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            throw new IllegalStateException("no system Java compiler: the docs' snippets need a JDK to run the tests");
        }
        Map<JavaFileObject, SnippetUnit> units = new LinkedHashMap<>();   // file objects compare by identity
        for (int i = 0; i < snippets.size(); i++) {
            SnippetUnit unit = new SnippetUnit(snippets.get(i), i, defaultImports);
            units.put(unit.fileObject(), unit);
        }
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        boolean compiled = true;
        try (StandardJavaFileManager files = javac.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8)) {
            List<String> options = List.of("--release", "17", "-proc:none", "-implicit:none", "-Xmaxerrs", "10000",
                    "-classpath", classPath, "-d", out.toString());
            // javac attributes nothing once any unit fails to parse: parse first, then compile the units that parsed,
            // so one snippet's syntax error hides no other snippet's missing type
            parse(javac, files, diagnostics, options, units.keySet());
            Map<JavaFileObject, SnippetUnit> parsed = new LinkedHashMap<>(units);
            errorsOf(diagnostics).forEach(d -> parsed.remove(d.getSource()));
            if (!parsed.isEmpty()) {
                compiled = javac.getTask(new StringWriter(), files, diagnostics, options, null, parsed.keySet()).call();
            }
        }
        List<String> errors = placed(errorsOf(diagnostics), units);
        if (!compiled && errors.isEmpty()) {
            errors.add("(compiler): the compilation failed without an error diagnostic");
        }
        return errors;
    }

    /** Parses {@code sources} alone: syntax errors land in {@code diagnostics}. */
    private static void parse(JavaCompiler javac, StandardJavaFileManager files,
            DiagnosticCollector<JavaFileObject> diagnostics, List<String> options, Iterable<JavaFileObject> sources)
            throws IOException {
        ((JavacTask) javac.getTask(new StringWriter(), files, diagnostics, options, null, sources)).parse();
    }

    private static List<Diagnostic<? extends JavaFileObject>> errorsOf(DiagnosticCollector<JavaFileObject> diagnostics) {
        return diagnostics.getDiagnostics().stream().filter(d -> d.getKind() == Diagnostic.Kind.ERROR).toList();
    }

    /** Each error diagnostic, placed on its page ({@code file:line: message} and the line's text), in page order. */
    private static List<String> placed(List<Diagnostic<? extends JavaFileObject>> diagnostics,
            Map<JavaFileObject, SnippetUnit> units) {
        List<JavaFileObject> order = new ArrayList<>(units.keySet());
        List<Diagnostic<? extends JavaFileObject>> sorted = diagnostics.stream()
                .sorted(Comparator.<Diagnostic<? extends JavaFileObject>>comparingInt(d -> order.indexOf(d.getSource()))
                        .thenComparingLong(Diagnostic::getLineNumber))
                .toList();
        List<String> errors = new ArrayList<>();
        for (Diagnostic<? extends JavaFileObject> d : sorted) {
            SnippetUnit unit = d.getSource() == null ? null : units.get(d.getSource());
            if (unit == null) {
                errors.add("(no snippet): " + d.getMessage(Locale.ROOT));
                continue;
            }
            String text = unit.pageText(d.getLineNumber());
            errors.add(unit.pageLocation(d.getLineNumber()) + ": " + d.getMessage(Locale.ROOT)
                    + (text.isEmpty() ? "" : "\n    " + text));
        }
        return errors;
    }
}
