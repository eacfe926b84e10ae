package ai.cotal.core.jwt;

/** A daily connect window ({@code HH:MM:SS}). */
public record TimeRange(String start, String end) {
}
