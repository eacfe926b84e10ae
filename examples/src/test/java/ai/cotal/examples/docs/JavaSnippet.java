package ai.cotal.examples.docs;

import java.util.List;

/**
 * One {@code ```java} fenced block of a Markdown page, with the hidden preamble written right
 * before its fence.
 *
 * @param file the page, relative to the repository root, with forward slashes ({@code docs/hosting.md})
 * @param fenceLine the 1-based line of the opening fence; the code's first line is the next one
 * @param preambleLine the 1-based line where the preamble comment starts, or 0 when there is none
 * @param preamble the preamble's text (member and import declarations), empty when there is none
 * @param code the block's lines, the fence's indentation removed
 */
record JavaSnippet(String file, int fenceLine, int preambleLine, String preamble, List<String> code) {
    JavaSnippet {
        code = List.copyOf(code);
    }

    /** {@code file:line} of the opening fence, as a reader finds the block. */
    String where() {
        return file + ":" + fenceLine;
    }

    /** The Markdown line that holds the code's {@code index}-th line (0-based). */
    int markdownLine(int index) {
        return fenceLine + 1 + index;
    }
}
