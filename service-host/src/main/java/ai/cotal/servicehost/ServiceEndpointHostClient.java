package ai.cotal.servicehost;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Objects;

/**
 * A small client for the host routes: {@code POST /service-endpoint-host} (decide, revoke,
 * name-bind, caller policy, reads) and {@code POST /service-endpoint-authority} (register). The
 * route derives the granter from the IdP token. HTTP refusals
 * become {@link ContractException}s with the catalog code of the status. The body is
 * {@code {idpToken, actor, request}}: the route derives the owner from the token and acts through
 * that owner's {@code actor} (its interactive ledger row). Thread-safe.
 */
public final class ServiceEndpointHostClient {
    /** The host route. */
    public static final String HOST_ROUTE = "/service-endpoint-host";
    /** The service authority route (register admission). */
    public static final String AUTHORITY_ROUTE = "/service-endpoint-authority";

    private final URI base;
    private final HttpClient http;
    private final Duration timeout;

    public ServiceEndpointHostClient(URI base, HttpClient http, Duration timeout) {
        this.base = Objects.requireNonNull(base, "base");
        this.http = Objects.requireNonNull(http, "http");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    /**
     * Sends {@code request} with the caller's IdP proof, acting as {@code actor}; register goes to
     * the authority route. {@code capability} (the loopback face's, or null) is sent as
     * {@code Authorization: Bearer}.
     */
    public HostResult invoke(String idpToken, String actor, HostRequest request, String capability) {
        if (idpToken == null || idpToken.isEmpty()) {
            throw ContractException.badRequest("idpToken", "is required");
        }
        if (actor == null || !actor.matches("[A-Za-z0-9_]{1,64}")) {
            throw ContractException.badRequest("actor", "must match [A-Za-z0-9_]{1,64}");
        }
        ObjectNode body = JsonMapper.builder().build().createObjectNode().put("idpToken", idpToken).put("actor", actor);
        body.set("request", HostJson.tree(HostJson.writeRequest(request), "request"));
        String route = request instanceof HostRequest.Register ? AUTHORITY_ROUTE : HOST_ROUTE;
        HttpResponse<byte[]> response;
        try {
            HttpRequest.Builder builder = HttpRequest.newBuilder(base.resolve(route)).timeout(timeout)
                    .header("Content-Type", "application/json");
            if (capability != null) {
                builder.header("Authorization", "Bearer " + capability);
            }
            response = http.send(builder.POST(HttpRequest.BodyPublishers.ofByteArray(HostJson.bytes(body))).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new ContractException("unavailable", "service-endpoint host unreachable: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ContractException("unavailable", "interrupted", e);
        }
        if (response.statusCode() == 200) {
            return HostJson.parseResult(response.body());
        }
        throw new ContractException(code(response.statusCode()), "service-endpoint host answered " + response.statusCode()
                + ": " + error(response.body()));
    }

    static String code(int status) {
        return switch (status) {
            case 400, 413, 415 -> "bad-request";
            case 401 -> "unauthenticated";
            case 403 -> "permission-denied";
            case 404 -> "not-found";
            case 409 -> "failed-precondition";
            case 429 -> "resource-exhausted";
            case 503 -> "unavailable";
            default -> "internal";
        };
    }

    private static String error(byte[] body) {
        try {
            JsonNode node = HostJson.tree(body, "error");
            return node.path("error").asText("(no reason)");
        } catch (ContractException e) {
            return "(no reason)";
        }
    }
}
