package ai.cotal.testbroker.oidc;

import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One realm of a {@link KeycloakServer}, configured through the admin REST API: public clients
 * that allow the password grant, users with a password, realm roles, the ID token's lifetime and
 * signature algorithm, and key rotation. Tokens come from the realm's own token endpoint, so they
 * are exactly what Keycloak issues to a user signing in.
 *
 * <p>Every client made here carries two mappers, so the ID token (not only the access token)
 * says what a claims policy reads: the realm roles as {@code realm_access.roles} and the group
 * names as {@code groups}. Thread-safe; each method is one or a few admin calls. A failed call is
 * an {@link IllegalStateException} naming the request and Keycloak's status.
 */
public final class KeycloakRealm {
    private final KeycloakAdmin admin;
    private final String name;
    private final String id;

    private KeycloakRealm(KeycloakAdmin admin, String name, String id) {
        this.admin = admin;
        this.name = name;
        this.id = id;
    }

    static KeycloakRealm create(KeycloakAdmin admin, String name) {
        Objects.requireNonNull(name, "name");
        admin.call("POST", "", Map.of("realm", name, "enabled", true));
        return new KeycloakRealm(admin, name, (String) admin.get("/" + name).get("id"));
    }

    /** The realm's name. */
    public String name() {
        return name;
    }

    /** The realm's issuer, {@code <server url>/realms/<name>}: what a relying party pins. */
    public String issuer() {
        return admin.base() + "/realms/" + name;
    }

    /**
     * Creates a public client {@code clientId} that allows the password grant (ID tokens have
     * {@code aud} and {@code azp} this client id), with the roles and groups mappers.
     */
    public void client(String clientId) {
        Map<String, Object> client = new LinkedHashMap<>();
        client.put("clientId", clientId);
        client.put("publicClient", true);
        client.put("directAccessGrantsEnabled", true);
        client.put("standardFlowEnabled", false);
        client.put("protocolMappers", List.of(
                mapper("realm roles", "oidc-usermodel-realm-role-mapper", Map.of("claim.name", "realm_access.roles",
                        "multivalued", "true", "jsonType.label", "String")),
                mapper("groups", "oidc-group-membership-mapper", Map.of("claim.name", "groups", "full.path", "false"))));
        admin.call("POST", "/" + name + "/clients", client);
    }

    private static Map<String, Object> mapper(String mapperName, String type, Map<String, String> config) {
        Map<String, String> all = new LinkedHashMap<>(config);
        all.put("id.token.claim", "true");
        all.put("access.token.claim", "true");
        all.put("userinfo.token.claim", "true");
        return Map.of("name", mapperName, "protocol", "openid-connect", "protocolMapper", type, "config", all);
    }

    /** Signs the ID tokens of {@code clientId} with {@code alg} (RS256 by default; ES256 needs {@link #addKey(String)} first). */
    public void idTokenAlgorithm(String clientId, String alg) {
        Map<String, Object> client = new LinkedHashMap<>(clientRepresentation(clientId));
        @SuppressWarnings("unchecked")
        Map<String, Object> attributes = new LinkedHashMap<>((Map<String, Object>) client.getOrDefault("attributes", Map.of()));
        attributes.put("id.token.signed.response.alg", alg);
        client.put("attributes", attributes);
        admin.call("PUT", "/" + name + "/clients/" + client.get("id"), client);
    }

    private Map<String, Object> clientRepresentation(String clientId) {
        List<Map<String, Object>> found = admin.list("/" + name + "/clients?clientId=" + enc(clientId));
        if (found.isEmpty()) {
            throw new IllegalStateException("realm " + name + " has no client " + clientId);
        }
        return found.get(0);
    }

    /** Creates an enabled user with {@code password} (email verified, names set), answering its id: the tokens' {@code sub}. */
    public String user(String username, String password) {
        admin.call("POST", "/" + name + "/users", Map.of("username", username, "enabled", true, "emailVerified", true,
                "email", username + "@example.test", "firstName", username, "lastName", "Test",
                "credentials", List.of(Map.of("type", "password", "value", password, "temporary", false))));
        return userId(username);
    }

    /** The id ({@code sub}) of {@code username}. */
    public String userId(String username) {
        List<Map<String, Object>> found = admin.list("/" + name + "/users?exact=true&username=" + enc(username));
        if (found.isEmpty()) {
            throw new IllegalStateException("realm " + name + " has no user " + username);
        }
        return (String) found.get(0).get("id");
    }

    /** Creates the realm role {@code role}. */
    public void role(String role) {
        admin.call("POST", "/" + name + "/roles", Map.of("name", role));
    }

    /** Gives {@code username} the realm role {@code role}. */
    public void grantRole(String username, String role) {
        admin.call("POST", "/" + name + "/users/" + userId(username) + "/role-mappings/realm", List.of(roleRepresentation(role)));
    }

    /** Takes the realm role {@code role} from {@code username}. */
    public void revokeRole(String username, String role) {
        admin.call("DELETE", "/" + name + "/users/" + userId(username) + "/role-mappings/realm", List.of(roleRepresentation(role)));
    }

    private Map<String, Object> roleRepresentation(String role) {
        return admin.get("/" + name + "/roles/" + enc(role));
    }

    /** Sets the lifetime of the realm's access and ID tokens (whole seconds, at least 1). */
    public void tokenLifetime(Duration lifetime) {
        Map<String, Object> realm = new LinkedHashMap<>(admin.get("/" + name));
        realm.put("accessTokenLifespan", Math.max(1, lifetime.toSeconds()));
        admin.call("PUT", "/" + name, realm);
    }

    /**
     * Adds a generated signing key for {@code alg} ({@code RS256}, {@code RS384}, {@code RS512},
     * {@code PS256}, {@code PS384}, {@code PS512} or {@code ES256}, {@code ES384}, {@code ES512})
     * with a priority above every key the realm has, so tokens of that algorithm are signed with
     * it from now on (a key rollover); answers the new key's id ({@code kid}).
     */
    public String addKey(String alg) {
        long priority = admin.get("/" + name + "/keys").entrySet().isEmpty() ? 100 : highestPriority() + 10;
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("priority", List.of(Long.toString(priority)));
        config.put("algorithm", List.of(alg));
        config.put("active", List.of("true"));
        config.put("enabled", List.of("true"));
        String provider;
        if (alg.startsWith("ES")) {
            provider = "ecdsa-generated";
            config.put("ecdsaEllipticCurveKey", List.of(switch (alg) {
                case "ES384" -> "P-384";
                case "ES512" -> "P-521";
                default -> "P-256";
            }));
        } else {
            provider = "rsa-generated";
            config.put("keySize", List.of("2048"));
        }
        String componentName = alg.toLowerCase(java.util.Locale.ROOT) + "-" + priority;
        HttpResponse<String> created = admin.call("POST", "/" + name + "/components", Map.of("name", componentName,
                "providerId", provider, "providerType", "org.keycloak.keys.KeyProvider", "parentId", id, "config", config));
        String location = created.headers().firstValue("Location").orElseThrow(
                () -> new IllegalStateException("Keycloak created key " + componentName + " without a Location"));
        String componentId = location.substring(location.lastIndexOf('/') + 1);
        return keys().stream().filter(k -> componentId.equals(k.get("providerId"))).map(k -> (String) k.get("kid"))
                .findFirst().orElseThrow(() -> new IllegalStateException("the new key of " + componentName + " is not listed"));
    }

    private long highestPriority() {
        return keys().stream().mapToLong(k -> ((Number) k.getOrDefault("providerPriority", 0)).longValue()).max().orElse(0);
    }

    @SuppressWarnings("unchecked")
    private List<Map<String, Object>> keys() {
        return ((List<Object>) admin.get("/" + name + "/keys").getOrDefault("keys", List.of())).stream()
                .map(KeycloakAdmin::cast).toList();
    }

    /**
     * Signs {@code username} in to {@code clientId} with the password grant ({@code scope=openid})
     * and answers the three tokens Keycloak issues.
     */
    public Tokens tokens(String clientId, String username, String password) {
        Map<String, Object> answer = admin.form("/realms/" + name + "/protocol/openid-connect/token", Map.of(
                "grant_type", "password", "client_id", clientId, "username", username, "password", password,
                "scope", "openid"));
        return new Tokens((String) answer.get("id_token"), (String) answer.get("access_token"),
                (String) answer.get("refresh_token"));
    }

    /**
     * What a sign-in answered. {@code toString()} names no token.
     *
     * @param idToken the ID token (what the token exchange takes)
     * @param accessToken the access token
     * @param refreshToken the refresh token
     */
    public record Tokens(String idToken, String accessToken, String refreshToken) {
        @Override
        public String toString() {
            return "Tokens[idToken, accessToken, refreshToken]";
        }
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
