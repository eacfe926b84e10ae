package ai.cotal.core.jwt;

/** Publish, subscribe and response permissions (an account's {@code default_permissions}). */
public record Permissions(Permission pub, Permission sub, ResponsePermission resp) {
}
