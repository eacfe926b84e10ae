package ai.cotal.member;

import io.nats.client.support.JsonParseException;
import io.nats.client.support.JsonParser;
import io.nats.client.support.JsonValue;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * The two HTTP calls a member makes to the space's public face (SPEC §13.17): the join bundle and
 * the token exchange. Required fields are read typed; fields it does not read are ignored (a newer
 * service's answer). Thread-safe.
 */
final class JoinService {
    /** What the join bundle says; {@code toString()} leaves the sentinel out. */
    record Bundle(String space, String server, String sentinelCreds) {
        @Override
        public String toString() {
            return "Bundle[" + space + ", " + server + "]";
        }
    }

    /** What an exchange answers; {@code toString()} leaves the token out. */
    record Bearer(String token, String owner, Instant exp) {
        @Override
        public String toString() {
            return "Bearer[owner " + owner + ", exp " + exp + "]";
        }
    }

    private final URI base;
    private final Duration timeout;
    private final HttpClient http;

    JoinService(URI joinUrl, Duration timeout) {
        String text = joinUrl.toString();
        this.base = URI.create(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER).build();
    }

    Bundle bundle() {
        Map<String, JsonValue> body = send(HttpRequest.newBuilder(URI.create(base + "/.well-known/cotal-mesh")).GET(), "join bundle");
        String server = string(body, "server", "join bundle");
        boolean tls = bool(body, "tlsRequired", "join bundle");
        String scheme;
        try {
            scheme = URI.create(server).getScheme();
        } catch (IllegalArgumentException e) {
            throw new MemberException("internal", "join bundle: server is not a URL", e);
        }
        boolean secure = "tls".equals(scheme) || "wss".equals(scheme);
        if (tls != secure) {
            throw new MemberException("internal", "join bundle: server " + server + " disagrees with tlsRequired " + tls);
        }
        return new Bundle(string(body, "space", "join bundle"), server, string(body, "sentinelCreds", "join bundle"));
    }

    Bearer exchange(String idToken, String actor) {
        if (idToken == null || idToken.isBlank()) {
            throw MemberException.badRequest("idTokens", "supplied no ID token");
        }
        String json = "{\"idpToken\":" + quote(idToken) + ",\"actor\":" + quote(actor) + "}";
        Map<String, JsonValue> body = send(HttpRequest.newBuilder(URI.create(base + "/exchange"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)), "exchange");
        JsonValue exp = body.get("exp");
        if (exp == null || exp.number == null) {
            throw new MemberException("internal", "exchange: the answer lacks a numeric exp");
        }
        return new Bearer(string(body, "token", "exchange"), string(body, "owner", "exchange"),
                Instant.ofEpochSecond(exp.number.longValue()));
    }

    private Map<String, JsonValue> send(HttpRequest.Builder request, String what) {
        HttpResponse<String> answer;
        try {
            answer = http.send(request.timeout(timeout).build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new MemberException("unavailable", what + ": the service at " + base + " cannot be reached now", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MemberException("unavailable", what + ": interrupted", e);
        }
        JsonValue parsed;
        try {
            parsed = JsonParser.parse(answer.body());
        } catch (JsonParseException e) {
            parsed = null;
        }
        Map<String, JsonValue> body = parsed != null && parsed.map != null ? parsed.map : null;
        if (answer.statusCode() != 200) {
            JsonValue error = body == null ? null : body.get("error");
            String text = error != null && error.string != null ? error.string : "HTTP " + answer.statusCode();
            throw new MemberException(code(answer.statusCode()), what + ": " + text);
        }
        if (body == null) {
            throw new MemberException("internal", what + ": the answer is not a JSON object");
        }
        return body;
    }

    static String code(int status) {
        return switch (status) {
            case 400 -> "bad-request";
            case 401 -> "unauthenticated";
            case 403 -> "permission-denied";
            case 404 -> "not-found";
            case 409 -> "conflict";
            case 429 -> "resource-exhausted";
            case 503 -> "unavailable";
            default -> "internal";
        };
    }

    private static String string(Map<String, JsonValue> body, String field, String what) {
        JsonValue v = body.get(field);
        if (v == null || v.string == null || v.string.isEmpty()) {
            throw new MemberException("internal", what + ": the answer lacks the string " + field);
        }
        return v.string;
    }

    private static boolean bool(Map<String, JsonValue> body, String field, String what) {
        JsonValue v = body.get(field);
        if (v == null || v.bool == null) {
            throw new MemberException("internal", what + ": the answer lacks the boolean " + field);
        }
        return v.bool;
    }

    private static String quote(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2).append('"');
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
