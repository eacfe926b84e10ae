package ai.cotal.core.jwt;

import java.util.List;

/** A subject allow/deny list of a user JWT ({@code pub} or {@code sub}). Immutable. */
public record Permission(List<String> allow, List<String> deny) {
    public Permission {
        allow = allow == null ? null : List.copyOf(allow);
        deny = deny == null ? null : List.copyOf(deny);
    }

    public static Permission allow(List<String> subjects) {
        return new Permission(subjects, null);
    }

    public static Permission allowDeny(List<String> allow, List<String> deny) {
        return new Permission(allow, deny);
    }

    /** Denies everything ({@code deny: [">"]}). */
    public static Permission none() {
        return new Permission(null, List.of(">"));
    }
}
