package ai.cotal.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each example's header states its size, and this test measures it: the lines that are not blank,
 * a comment or an import, and the distinct SDK types it names (every imported {@code ai.cotal}
 * type and every nested type it reaches through one, such as {@code AuthAuthorityPlane.ClaimInfo}). A header
 * that disagrees with the source fails, naming the measured numbers.
 */
class ExampleSizeTest {
    private static final Pattern HEADER = Pattern.compile(
            "Size \\(measured by ExampleSizeTest\\): (\\d+) lines \\(no blanks, comments or imports\\), (\\d+) distinct\\s+(?:\\*\\s+)?SDK types");
    private static final Pattern SDK_IMPORT = Pattern.compile("^import (ai\\.cotal\\.[\\w.]+\\.([A-Z]\\w*));$",
            Pattern.MULTILINE);

    /** The example's source with every comment removed (string literals in the examples hold no comment markers). */
    static String withoutComments(String source) {
        return source.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("(?m)//.*$", "");
    }

    /** Lines that are not blank, a comment or an import. */
    static long lines(String source) {
        return withoutComments(source).lines().map(String::strip)
                .filter(line -> !line.isEmpty() && !line.startsWith("import ")).count();
    }

    /** The SDK types named: imported {@code ai.cotal} types and the nested types reached through them. */
    static Set<String> sdkTypes(String source) {
        Set<String> types = new TreeSet<>();
        Matcher imports = SDK_IMPORT.matcher(source);
        while (imports.find()) {
            types.add(imports.group(1));
        }
        String code = withoutComments(source).replaceAll("(?m)^import .*$", "");
        for (String imported : Set.copyOf(types)) {
            String simple = imported.substring(imported.lastIndexOf('.') + 1);
            Matcher nested = Pattern.compile("\\b" + simple + "\\.([A-Z][a-z]\\w*)").matcher(code);
            while (nested.find()) {
                types.add(imported + "." + nested.group(1));
            }
        }
        return types;
    }

    @ParameterizedTest
    @ValueSource(strings = {"FirstProgram", "ServiceExchange"})
    void theHeaderStatesTheMeasuredSize(String example) throws IOException {
        String source = Files.readString(Path.of("src/main/java/ai/cotal/examples/" + example + ".java"));
        Matcher header = HEADER.matcher(source);
        assertTrue(header.find(), example + ": no size header");
        long lines = lines(source);
        Set<String> types = sdkTypes(source);
        assertTrue(withoutComments(source).lines().noneMatch(line -> !line.startsWith("import ")
                && !line.startsWith("package ") && line.contains("ai.cotal.")), example + ": every SDK type is imported,"
                + " so the count sees it");
        String measured = example + " measures " + lines + " lines and " + types.size() + " SDK types " + types;
        assertEquals(Long.parseLong(header.group(1)), lines, measured);
        assertEquals(Integer.parseInt(header.group(2)), types.size(), measured);
    }

    @org.junit.jupiter.api.Test
    void theCounterCountsWhatItSays() {
        String source = """
                package x;

                import ai.cotal.auth.AuthAuthorityPlane;

                /** A comment. */
                class X { // trailing
                    /* block
                       comment */
                    Object claim = new AuthAuthorityPlane.ClaimInfo(1, "c");
                    int max = AuthAuthorityPlane.MAX;
                }
                """;
        assertEquals(5, lines(source));
        assertEquals(Set.of("ai.cotal.auth.AuthAuthorityPlane", "ai.cotal.auth.AuthAuthorityPlane.ClaimInfo"), sdkTypes(source));
    }
}
