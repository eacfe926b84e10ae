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
 * body is {@code {idpToken, request}}: the route derives the granter from the IdP token. HTTP
 * refusals become {@link ContractException}s with the catalog code of the status, and an answer
 * that does not echo the request's {@code requestId} (an answer to another request) is refused.
 *
 * <p>Mint each write's id with {@link #newRequestId()} and persist it before the first send:
 * after a lost answer, sending the same request with the same id again is always safe and answers
 * from the store. Thread-safe.
 */
public final class ServiceEndpointHostClient {
    /** The host route. */
    public static final String HOST_ROUTE = "/service-endpoint-host";
    /** The service authority route (register admission). */
    public static final String AUTHORITY_ROUTE = "/service-endpoint-authority";

    private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();
    private final URI base;
    private final HttpClient http;
    private final Duration timeout;

    /**
     * A client of the routes under {@code base} (the face's URL, e.g. {@code https://auth.example}:
     * the public face, or the loopback face with its capability).
     *
     * @param base the face's base URL; the route paths are resolved against it
     * @param http the HTTP client the requests are sent with
     * @param timeout each request's timeout
     * @throws NullPointerException when an argument is null
     */
    public ServiceEndpointHostClient(URI base, HttpClient http, Duration timeout) {
        this.base = Objects.requireNonNull(base, "base");
        this.http = Objects.requireNonNull(http, "http");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    /**
     * A fresh, unpredictable request id: 192 bits from {@link java.security.SecureRandom} as 32
     * base64url characters (the {@code requestId} grammar, SPEC §13.1). Request ids share one
     * namespace per space and name one request forever: persist the id with the request before
     * the first send, and send the same pair again after a lost answer.
     */
    public static String newRequestId() {
        byte[] bytes = new byte[24];
        RANDOM.nextBytes(bytes);
        return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** Sends {@code request} with the caller's IdP proof to the public face (no capability). */
    public HostResult invoke(String idpToken, HostRequest request) {
        return invoke(idpToken, request, null);
    }

    /**
     * Sends {@code request} with the caller's IdP proof; register goes to the authority route.
     * {@code capability} (the loopback face's, or null) is sent as {@code Authorization: Bearer}.
     *
     * @throws ContractException with the catalog code of an HTTP refusal; {@code unavailable} when
     *     the route is unreachable or answers another request (send the same request again)
     */
    public HostResult invoke(String idpToken, HostRequest request, String capability) {
        if (idpToken == null || idpToken.isEmpty()) {
            throw ContractException.badRequest("idpToken", "is required");
        }
        if (request == null) {
            throw ContractException.badRequest("request", "is required");
        }
        ObjectNode body = JsonMapper.builder().build().createObjectNode().put("idpToken", idpToken);
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
            return answering(request, HostJson.parseResult(response.body()));
        }
        throw new ContractException(code(response.statusCode()), "service-endpoint host answered " + response.statusCode()
                + ": " + error(response.body()));
    }

    /** {@code result} when it answers {@code request}: a write's result echoes its requestId, a read's carries none. */
    static HostResult answering(HostRequest request, HostResult result) {
        String expected = request instanceof HostRequest.Mutating m ? m.requestId() : null;
        if (!java.util.Objects.equals(expected, result.requestId())) {
            throw new ContractException("unavailable", "requestId: the service-endpoint host answered another request;"
                    + " send the same request again");
        }
        return result;
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
