package ai.cotal.examples.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README's quick start is what the embedder's project runs: its one {@code ```java} block is,
 * whitespace aside, the body of {@code main} in examples/consumer's {@code QuickStart}, which
 * {@code scripts/consumer} builds against the installed SDK and runs. The coordinates the quick
 * start gives carry the root pom's version, as the consumer's pom does. (DocSnippetsTest compiles
 * the block against the API as it is.)
 */
class ReadmeQuickStartTest {
    static final String SECTION = "## Quick start";
    static final String QUICK_START = "examples/consumer/src/main/java/quickstart/QuickStart.java";
    static final String MAIN = "public static void main(String[] args) throws Exception {";
    private static final Pattern VERSION = Pattern.compile("<version>([^<$]+)</version>");

    /** The lines of {@code page}'s section that opens with the line {@code heading}, up to the next {@code ## } heading. */
    static List<String> section(List<String> page, String heading) {
        int start = page.indexOf(heading);
        assertTrue(start >= 0, "README.md has no \"" + heading + "\" heading");
        int end = start + 1;
        while (end < page.size() && !page.get(end).startsWith("## ")) {
            end++;
        }
        return page.subList(start, end);
    }

    /**
     * The text between the braces of the one method declared by {@code signature} in {@code source}:
     * braces in string and character literals and in comments do not count.
     */
    static String methodBody(String source, String signature) {
        int open = source.indexOf(signature);
        if (open < 0 || source.indexOf(signature, open + 1) >= 0) {
            throw new IllegalArgumentException("not exactly one \"" + signature + "\" in the source");
        }
        int from = open + signature.length();
        int depth = 1;
        for (int i = from; i < source.length(); i++) {
            char c = source.charAt(i);
            if (c == '"' || c == '\'') {
                i = endOfLiteral(source, i, c);
            } else if (source.startsWith("//", i)) {
                i = source.indexOf('\n', i) < 0 ? source.length() : source.indexOf('\n', i);
            } else if (source.startsWith("/*", i)) {
                i = source.indexOf("*/", i + 2) + 1;
            } else if (c == '{') {
                depth++;
            } else if (c == '}' && --depth == 0) {
                return source.substring(from, i);
            }
        }
        throw new IllegalArgumentException("the method \"" + signature + "\" is never closed");
    }

    /** The index of the quote that closes the literal opened at {@code open}. */
    private static int endOfLiteral(String source, int open, char quote) {
        for (int i = open + 1; i < source.length(); i++) {
            if (source.charAt(i) == '\\') {
                i++;
            } else if (source.charAt(i) == quote) {
                return i;
            }
        }
        throw new IllegalArgumentException("a literal opened at " + open + " is never closed");
    }

    /** Every run of whitespace as one space, none at the ends. */
    static String normalised(String code) {
        return code.strip().replaceAll("\\s+", " ");
    }

    @Test
    void theQuickStartBlockIsTheBodyOfTheConsumersQuickStartMain() throws IOException {
        Path root = DocSnippetsTest.repositoryRoot();
        List<String> readme = Files.readAllLines(root.resolve("README.md"), StandardCharsets.UTF_8);
        List<String> section = section(readme, SECTION);
        int first = readme.indexOf(SECTION) + 1;   // 1-based line of the heading
        List<JavaSnippet> blocks = MarkdownSnippets.find(root).snippets().stream()
                .filter(s -> s.file().equals("README.md") && s.fenceLine() > first && s.fenceLine() < first + section.size())
                .toList();
        assertEquals(1, blocks.size(), "README.md's quick start holds one ```java block: " + blocks);
        JavaSnippet block = blocks.get(0);
        assertTrue(block.preamble().isEmpty(), block.where() + ": the quick start is pasted whole, it has no hidden context");
        assertTrue(block.code().size() <= 25, block.where() + ": the quick start has " + block.code().size()
                + " lines, more than the 25 it promises a reader");
        String body = methodBody(Files.readString(root.resolve(QUICK_START), StandardCharsets.UTF_8), MAIN);
        String shown = normalised(String.join("\n", block.code()));
        String quickStart = normalised(body);
        assertEquals(shown, quickStart, () -> block.where() + " and the body of main in " + QUICK_START
                + " differ (change both), first at: README \"" + around(shown, quickStart) + "\", QuickStart \""
                + around(quickStart, shown) + "\"");
    }

    /** Up to 40 characters of {@code text} from a little before where it first differs from {@code other}. */
    static String around(String text, String other) {
        int at = 0;
        while (at < text.length() && at < other.length() && text.charAt(at) == other.charAt(at)) {
            at++;
        }
        int from = Math.max(0, at - 15);
        return text.substring(from, Math.min(text.length(), from + 40));
    }

    @Test
    void theQuickStartsCoordinatesNameTheVersionTheConsumerBuildsWith() throws IOException {
        Path root = DocSnippetsTest.repositoryRoot();
        String version = firstVersion(Files.readString(root.resolve("pom.xml"), StandardCharsets.UTF_8)
                .replaceFirst("(?s)<parent>.*?</parent>", ""));
        String section = String.join("\n", section(Files.readAllLines(root.resolve("README.md"), StandardCharsets.UTF_8),
                SECTION));
        for (String artifact : List.of("cotal-auth", "cotal-test-broker")) {
            assertTrue(section.contains("<groupId>ai.cotal</groupId><artifactId>" + artifact + "</artifactId><version>"
                    + version + "</version>"), "the quick start gives ai.cotal:" + artifact + ":" + version);
        }
        String consumer = Files.readString(root.resolve("examples/consumer/pom.xml"), StandardCharsets.UTF_8);
        assertTrue(consumer.contains("<cotal.version>" + version + "</cotal.version>"), "examples/consumer/pom.xml"
                + " depends on the SDK at " + version);
        assertTrue(!consumer.contains("<parent>"), "the consumer is an embedder's project: no parent pom");
    }

    private static String firstVersion(String pom) {
        Matcher m = VERSION.matcher(pom);
        assertTrue(m.find(), "the root pom names no version");
        return m.group(1);
    }

    @Test
    void theBodyEndsAtItsOwnBraceAndTheComparisonSeesAnyChangedToken() {
        String source = """
                class X {
                    public static void main(String[] args) throws Exception {
                        if (args.length > 0) { System.out.println("}"); }   // a } in a comment
                        char c = '}'; /* and { here */
                    }
                    void other() { }
                }
                """;
        String body = methodBody(source, MAIN);
        assertEquals("if (args.length > 0) { System.out.println(\"}\"); } // a } in a comment char c = '}'; /* and { here */",
                normalised(body));
        assertEquals(normalised("a(b,\n        c);"), normalised("  a(b, c);  "));
        assertNotEquals(normalised("a(b, c);"), normalised("a(b, d);"));
        assertNotEquals(normalised("a(b, c);"), normalised("a(bc);"));
        assertEquals("b, d);", around("a(b, d);", "a(b, c);").substring(2));
        assertThrows(IllegalArgumentException.class, () -> methodBody("class Y { }", MAIN));
    }
}
