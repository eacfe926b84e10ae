package ai.cotal.examples.docs;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;

/**
 * One snippet wrapped in a compilation unit of its own: the default imports, the imports the
 * preamble and the snippet name, then a class whose members are the preamble's declarations and
 * either the snippet's type declarations (when its first code line declares a class, record,
 * interface or enum) or a method {@code void snippet() throws Exception} whose body is the snippet.
 * The snippet's lines keep their order and count, so a compiler line maps back to the page.
 */
final class SnippetUnit {
    private static final Pattern IMPORT = Pattern.compile("import\\s+(static\\s+)?[\\w.]+(\\.\\*)?\\s*;");
    private static final Pattern TYPE_DECLARATION = Pattern.compile(
            "^((public|protected|private|abstract|final|static|sealed|non-sealed|strictfp)\\s+)*"
                    + "(class|interface|enum|record|@interface)\\s+\\w.*");

    private final JavaSnippet snippet;
    private final String className;
    private final String source;
    private final int preambleFirst;
    private final int preambleLast;
    private final int codeFirst;

    SnippetUnit(JavaSnippet snippet, int index, List<String> defaultImports) {
        this.snippet = snippet;
        this.className = "Snippet" + index + "_" + snippet.file().replaceAll("\\W", "_") + "_" + snippet.fenceLine();
        List<String> imports = new ArrayList<>();
        for (String pkg : defaultImports) {
            imports.add("import " + pkg + ".*;");
        }
        Matcher preambleImports = IMPORT.matcher(snippet.preamble());
        while (preambleImports.find()) {
            imports.add(preambleImports.group());
        }
        List<String> code = new ArrayList<>();
        for (String line : snippet.code()) {
            boolean anImport = IMPORT.matcher(line.strip()).matches();
            if (anImport) {
                imports.add(line.strip());
            }
            code.add(anImport ? "" : line);   // a blank line keeps the line numbers
        }
        List<String> unit = new ArrayList<>();
        unit.add("package docsnippets;");
        unit.addAll(imports);
        unit.add("@SuppressWarnings(\"all\")");
        unit.add("class " + className + " {");
        preambleFirst = unit.size() + 1;
        unit.addAll(IMPORT.matcher(snippet.preamble()).replaceAll("").lines().toList());
        preambleLast = unit.size();
        boolean declarations = declaresTypes(code);
        if (!declarations) {
            unit.add("void snippet() throws Exception {");
        }
        codeFirst = unit.size() + 1;
        unit.addAll(code);
        if (!declarations) {
            unit.add("}");
        }
        unit.add("}");
        source = String.join("\n", unit) + "\n";
    }

    /** Whether the first line that is not blank, a comment or an annotation declares a type. */
    static boolean declaresTypes(List<String> code) {
        for (String line : code) {
            String s = line.strip();
            if (s.isEmpty() || s.startsWith("//") || s.startsWith("/*") || s.startsWith("*") || s.startsWith("@")
                    && !s.startsWith("@interface")) {
                continue;
            }
            return TYPE_DECLARATION.matcher(s).matches();
        }
        return false;
    }

    JavaSnippet snippet() {
        return snippet;
    }

    /** The unit's Java source. */
    String source() {
        return source;
    }

    /** The unit as a file object the compiler reads from memory. */
    JavaFileObject fileObject() {
        return new SimpleJavaFileObject(URI.create("string:///docsnippets/" + className + ".java"),
                JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return source;
            }
        };
    }

    /**
     * Where a compiler line of this unit stands on the page: {@code file:line} of the snippet's code
     * line, of the preamble comment, or of the fence for a line of the wrapper itself.
     */
    String pageLocation(long unitLine) {
        int codeIndex = (int) (unitLine - codeFirst);
        if (codeIndex >= 0 && codeIndex < snippet.code().size()) {
            return snippet.file() + ":" + snippet.markdownLine(codeIndex);
        }
        if (unitLine >= preambleFirst && unitLine <= preambleLast) {
            return snippet.file() + ":" + snippet.preambleLine() + " (preamble)";
        }
        return snippet.where() + " (the wrapper around the block)";
    }

    /** The page's text of a compiler line, for the report; empty for a wrapper line. */
    String pageText(long unitLine) {
        int codeIndex = (int) (unitLine - codeFirst);
        return codeIndex >= 0 && codeIndex < snippet.code().size() ? snippet.code().get(codeIndex).strip() : "";
    }
}
