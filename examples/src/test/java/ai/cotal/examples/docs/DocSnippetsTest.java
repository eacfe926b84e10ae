package ai.cotal.examples.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code ```java} block of {@code README.md} and {@code docs/*.md} compiles against the
 * SDK as it is: a renamed type or method breaks this test, not the reader. The convention (the
 * preamble comment, the default imports, statements or declarations) is in docs/testing.md,
 * "Snippets in the docs".
 */
class DocSnippetsTest {
    private static final String CLASS_PATH = System.getProperty("java.class.path");

    /** The repository root: the nearest directory at or above the module's that holds README.md, docs/ and the parent pom. */
    static Path repositoryRoot() throws IOException {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path pom = dir.resolve("pom.xml");
            if (Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("docs"))
                    && Files.isRegularFile(pom)
                    && Files.readString(pom, StandardCharsets.UTF_8).contains("<artifactId>cotal-parent</artifactId>")) {
                return dir;
            }
        }
        throw new IllegalStateException("no repository root (README.md, docs/ and the cotal-parent pom) at or above "
                + Path.of("").toAbsolutePath());
    }

    private static List<String> compile(List<JavaSnippet> snippets, Path out) throws IOException {
        return SnippetCompiler.compile(snippets, SnippetCompiler.defaultImports(repositoryRoot()), CLASS_PATH, out);
    }

    @Test
    void everyJavaSnippetInTheDocsCompilesAgainstTheApi(@TempDir Path out) throws IOException {
        MarkdownSnippets.Found found = MarkdownSnippets.find(repositoryRoot());
        assertEquals(List.of(), found.problems(), "pages that break the snippet convention");
        assertFalse(found.snippets().isEmpty(), "no ```java block found in README.md or docs/*.md: the finder is broken");
        List<String> errors = compile(found.snippets(), out);
        assertTrue(errors.isEmpty(), errors.size() + " compile error(s) in the " + found.snippets().size()
                + " snippets (docs/testing.md, \"Snippets in the docs\", says how to give one its context):\n"
                + String.join("\n", errors));
    }

    @Test
    void eachBrokenSnippetFailsAtItsPageLineAndASyntaxErrorHidesNoOther(@TempDir Path out) throws IOException {
        MarkdownSnippets.Found found = MarkdownSnippets.parse("docs/x.md", """
                Text.

                <!-- preamble: AuthAuthorityPlane plane; -->
                ```java
                plane.ledger();
                NoSuchPlane other = plane;
                ```

                ```java
                AuthPlaneOptions options = ...;
                ```

                <!-- preamble: AuthAuthorityPlane plane; -->
                ```java
                plane.noSuchFacet();
                ```
                """);
        assertEquals(List.of(), found.problems());
        List<String> errors = compile(found.snippets(), out);
        assertEquals(3, errors.size(), errors.toString());
        assertTrue(errors.get(0).startsWith("docs/x.md:6: cannot find symbol") && errors.get(0).contains("NoSuchPlane")
                && errors.get(0).endsWith("NoSuchPlane other = plane;"), errors.get(0));
        assertTrue(errors.get(1).startsWith("docs/x.md:10: illegal start of expression"), errors.get(1));
        assertTrue(errors.get(2).startsWith("docs/x.md:15: cannot find symbol") && errors.get(2).contains("noSuchFacet"),
                errors.get(2));
    }

    @Test
    void statementsTypeDeclarationsAndImportsCompileInTheirOwnUnitsAndOtherFencesAreNotJava(@TempDir Path out) throws IOException {
        MarkdownSnippets.Found found = MarkdownSnippets.parse("docs/x.md", """
                ```java
                Duration ttl = Duration.ofMinutes(5);   // a default import
                ```

                - in a list:

                  <!-- preamble: import java.util.function.Supplier;
                       Supplier<String> name; -->
                  ```java
                  @SuppressWarnings("unused")
                  record Named(String name) {
                  }
                  class Holder {
                      String held = name.get();
                  }
                  ```

                ```text
                not Java at all {
                ```

                ````markdown
                <!-- preamble: shown, not compiled -->
                ```java
                shown, not compiled
                ```
                ````
                """);
        assertEquals(List.of(), found.problems());
        assertEquals(2, found.snippets().size());
        assertTrue(SnippetUnit.declaresTypes(found.snippets().get(1).code()));
        assertEquals(List.of(), compile(found.snippets(), out));
    }

    @Test
    void aPreambleAwayFromAJavaFenceAndAnUnclosedFenceAreProblems() {
        MarkdownSnippets.Found found = MarkdownSnippets.parse("docs/x.md", """
                <!-- preamble: AuthAuthorityPlane plane; -->

                ```java
                plane.ledger();
                ```
                <!-- preamble: SpaceAuth auth; -->
                ```text
                ```
                ```java
                never closed
                """);
        assertEquals(List.of("docs/x.md:1: a preamble must stand on the line right before a ```java fence",
                "docs/x.md:6: a preamble must stand on the line right before a ```java fence",
                "docs/x.md:9: a fenced block that is never closed"), found.problems());
        assertEquals(List.of("docs/x.md:3"), found.snippets().stream().map(JavaSnippet::where).collect(Collectors.toList()));
    }
}
