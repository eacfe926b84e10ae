package ai.cotal.core.issued;

import ai.cotal.core.CotalException;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * The most an issuance may grant, per direction: {@code allow} is {@code all}, {@code none} or a
 * list of patterns, and {@code deny} patterns always win. Immutable; compared byte for byte in
 * its written form.
 */
public record Ceiling(Side publish, Side subscribe) {
    /** One direction of a ceiling. */
    public record Side(Mode mode, List<String> patterns, List<String> deny) {
        public Side {
            if (mode == null) {
                throw CotalException.badRequest("permissions.mode", "must be all, none or patterns");
            }
            patterns = patterns == null ? List.of() : List.copyOf(patterns);
            deny = deny == null ? List.of() : List.copyOf(deny);
            if (mode != Mode.PATTERNS && !patterns.isEmpty()) {
                throw CotalException.badRequest("permissions.patterns", "only with mode patterns");
            }
            if (mode == Mode.PATTERNS && patterns.isEmpty()) {
                throw CotalException.badRequest("permissions.patterns", "mode patterns needs at least one pattern");
            }
            for (String subject : patterns) {
                checkSubject(subject, "permissions.patterns");
            }
            for (String subject : deny) {
                checkSubject(subject, "permissions.deny");
            }
        }

        public static Side all() {
            return new Side(Mode.ALL, List.of(), List.of());
        }

        public static Side none() {
            return new Side(Mode.NONE, List.of(), List.of());
        }

        public static Side patterns(List<String> allow, List<String> deny) {
            return new Side(Mode.PATTERNS, allow, deny);
        }
    }

    /** How a side allows; written {@code all}, {@code none}, {@code patterns}. */
    public enum Mode {
        @JsonProperty("all") ALL,
        @JsonProperty("none") NONE,
        @JsonProperty("patterns") PATTERNS
    }

    public Ceiling {
        if (publish == null || subscribe == null) {
            throw CotalException.badRequest("permissions", "needs publish and subscribe");
        }
    }

    private static void checkSubject(String subject, String field) {
        if (subject == null || subject.isEmpty() || subject.length() > 512 || subject.chars().anyMatch(c -> c <= ' ')
                || subject.startsWith(".") || subject.endsWith(".") || subject.contains("..")) {
            throw CotalException.badRequest(field, "not a NATS subject pattern");
        }
    }
}
