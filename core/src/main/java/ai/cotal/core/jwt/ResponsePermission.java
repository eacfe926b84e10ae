package ai.cotal.core.jwt;

/** {@code resp}: how many replies ({@code max}) for how long ({@code ttl}, nanoseconds). */
public record ResponsePermission(long max, long ttl) {
}
