package ai.cotal.testbroker.oidc;

import com.nimbusds.jose.util.JSONArrayUtils;
import com.nimbusds.jose.util.JSONObjectUtils;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Keycloak's admin REST API and token endpoint as a test needs them: JSON in and out (Nimbus's
 * JSON helpers), the master realm's admin token fetched again when it is 30 s old. A failed call is
 * an {@link IllegalStateException} naming the method, path and status (never a token).
 */
final class KeycloakAdmin {
    private final String base;
    private final String password;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private String token;
    private Instant tokenAt = Instant.EPOCH;

    KeycloakAdmin(String base, String password) {
        this.base = base;
        this.password = password;
    }

    String base() {
        return base;
    }

    /** A form POST to {@code path} (no admin token), answering the JSON object it returns. */
    Map<String, Object> form(String path, Map<String, String> fields) {
        String body = fields.entrySet().stream().map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8)).collect(Collectors.joining("&"));
        HttpResponse<String> answer = send(HttpRequest.newBuilder(URI.create(base + path))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body)), "POST", path);
        return object(answer.body());
    }

    /** An admin call: {@code method} on {@code /admin/realms<path>} with a JSON body (or none), answering the response. */
    HttpResponse<String> call(String method, String path, Object json) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + "/admin/realms" + path))
                .header("Authorization", "Bearer " + adminToken()).header("Content-Type", "application/json")
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(json instanceof List<?> list ? JSONArrayUtils.toJSONString(list)
                                : JSONObjectUtils.toJSONString(cast(json))));
        return send(request, method, "/admin/realms" + path);
    }

    /** A GET answering a JSON array of objects. */
    List<Map<String, Object>> list(String path) {
        try {
            return JSONArrayUtils.parse(call("GET", path, null).body()).stream().map(KeycloakAdmin::cast).toList();
        } catch (ParseException e) {
            throw new IllegalStateException("GET " + path + " did not answer a JSON array", e);
        }
    }

    /** A GET answering a JSON object. */
    Map<String, Object> get(String path) {
        return object(call("GET", path, null).body());
    }

    private synchronized String adminToken() {
        if (token == null || Instant.now().isAfter(tokenAt.plusSeconds(30))) {
            Map<String, Object> answer = form("/realms/master/protocol/openid-connect/token", Map.of("grant_type", "password",
                    "client_id", "admin-cli", "username", "admin", "password", password));
            token = (String) answer.get("access_token");
            tokenAt = Instant.now();
        }
        return token;
    }

    private HttpResponse<String> send(HttpRequest.Builder request, String method, String path) {
        try {
            HttpResponse<String> answer = http.send(request.timeout(Duration.ofSeconds(60)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() / 100 != 2) {
                throw new IllegalStateException(method + " " + path + " answered " + answer.statusCode() + ": "
                        + answer.body().substring(0, Math.min(300, answer.body().length())));
            }
            return answer;
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + path + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + method + " " + path, e);
        }
    }

    static Map<String, Object> object(String json) {
        try {
            return JSONObjectUtils.parse(json);
        } catch (ParseException e) {
            throw new IllegalStateException("Keycloak did not answer a JSON object", e);
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> cast(Object json) {
        return (Map<String, Object>) json;
    }
}
