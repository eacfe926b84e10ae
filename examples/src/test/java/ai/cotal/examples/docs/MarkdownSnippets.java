package ai.cotal.examples.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Finds the {@code ```java} blocks of the repository's Markdown pages ({@code README.md} and
 * {@code docs/*.md}) and the preamble comment right before each fence. Every fence is tracked,
 * whatever its language, so a fence shown inside another block is not mistaken for one. A page
 * that breaks the convention (a fence never closed, a preamble not followed by a {@code ```java}
 * fence, a preamble never closed) is a problem, reported beside the snippets.
 */
final class MarkdownSnippets {
    private static final Pattern FENCE = Pattern.compile("^(\\s*)(`{3,}|~{3,})\\s*([^\\s`]*).*$");
    private static final String PREAMBLE_OPEN = "<!-- preamble:";
    private static final String COMMENT_CLOSE = "-->";

    /** What the pages hold: every Java snippet in page order, and every breach of the convention. */
    record Found(List<JavaSnippet> snippets, List<String> problems) {
    }

    private final List<JavaSnippet> snippets = new ArrayList<>();
    private final List<String> problems = new ArrayList<>();

    private MarkdownSnippets() {
    }

    /** The pages the convention covers, below {@code root}: {@code README.md}, then {@code docs/*.md} by name. */
    static List<Path> pages(Path root) throws IOException {
        List<Path> pages = new ArrayList<>();
        pages.add(root.resolve("README.md"));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(p -> p.getFileName().toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** Reads every page under {@code root} that {@link #pages} names. */
    static Found find(Path root) throws IOException {
        MarkdownSnippets found = new MarkdownSnippets();
        for (Path page : pages(root)) {
            String name = root.relativize(page).toString().replace('\\', '/');
            found.scan(name, Files.readAllLines(page));
        }
        return new Found(List.copyOf(found.snippets), List.copyOf(found.problems));
    }

    /** Reads one page's text, named {@code name} in what it reports. */
    static Found parse(String name, String text) {
        MarkdownSnippets found = new MarkdownSnippets();
        found.scan(name, text.lines().toList());
        return new Found(List.copyOf(found.snippets), List.copyOf(found.problems));
    }

    private void scan(String name, List<String> lines) {
        int i = 0;
        while (i < lines.size()) {
            String line = lines.get(i);
            Matcher fence = FENCE.matcher(line);
            if (fence.matches()) {
                i = block(name, lines, i, fence, 0, "");
            } else if (line.strip().startsWith(PREAMBLE_OPEN)) {
                i = preamble(name, lines, i);
            } else {
                i++;
            }
        }
    }

    /** Reads the preamble comment opening at {@code start}; the next line must open a {@code ```java} fence. */
    private int preamble(String name, List<String> lines, int start) {
        StringBuilder text = new StringBuilder();
        int i = start;
        String rest = lines.get(i).strip().substring(PREAMBLE_OPEN.length());
        while (!rest.contains(COMMENT_CLOSE)) {
            text.append(rest).append('\n');
            if (++i == lines.size()) {
                problems.add(name + ":" + (start + 1) + ": a preamble comment that is never closed with -->");
                return i;
            }
            rest = lines.get(i);
        }
        text.append(rest, 0, rest.indexOf(COMMENT_CLOSE));
        int next = i + 1;
        Matcher fence = next < lines.size() ? FENCE.matcher(lines.get(next)) : null;
        if (fence == null || !fence.matches() || !isJava(fence)) {
            problems.add(name + ":" + (start + 1) + ": a preamble must stand on the line right before a ```java fence");
            return next;
        }
        return block(name, lines, next, fence, start + 1, text.toString().strip());
    }

    /** Reads the fenced block opening at {@code open}; records it when it is Java. Answers the line after it. */
    private int block(String name, List<String> lines, int open, Matcher fence, int preambleLine, String preamble) {
        String indent = fence.group(1);
        String marker = fence.group(2);
        List<String> code = new ArrayList<>();
        for (int i = open + 1; i < lines.size(); i++) {
            String line = lines.get(i);
            String stripped = line.strip();
            if (stripped.startsWith(marker) && stripped.chars().allMatch(c -> c == marker.charAt(0))) {
                if (isJava(fence)) {
                    snippets.add(new JavaSnippet(name, open + 1, preambleLine, preamble, code));
                }
                return i + 1;
            }
            code.add(line.startsWith(indent) ? line.substring(indent.length()) : line.stripLeading());
        }
        problems.add(name + ":" + (open + 1) + ": a fenced block that is never closed");
        return lines.size();
    }

    private static boolean isJava(Matcher fence) {
        return fence.group(3).equalsIgnoreCase("java");
    }
}
