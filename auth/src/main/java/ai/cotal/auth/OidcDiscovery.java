package ai.cotal.auth;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads an OpenID Connect provider's discovery document once, at pin time (SPEC §13.14): JDK
 * client, no redirects, 5 s timeouts, at most 64 KiB. The document is the provider's, so unknown
 * members are ignored; the members the pin takes are checked.
 */
final class OidcDiscovery {
    static final String PATH = "/.well-known/openid-configuration";
    private static final int MAX_BYTES = 64 * 1024;
    private static final ObjectMapper JSON = new ObjectMapper();

    private OidcDiscovery() {
    }

    /** The pin {@code issuer}'s discovery document yields ({@code unavailable} when it cannot be read). */
    static IdpPin discover(String issuer, String clientId, List<String> configured) {
        URI where = URI.create(issuer.replaceAll("/+$", "") + PATH);
        JsonNode doc = fetch(where);
        if (!doc.isObject() || !issuer.equals(doc.path("issuer").asText(null))) {
            throw CotalException.failedPrecondition("the provider's discovery document: issuer is not exactly " + issuer);
        }
        String jwksUri = doc.path("jwks_uri").asText(null);
        try {
            checkJwksUri(jwksUri);
        } catch (CotalException e) {
            throw CotalException.failedPrecondition("the provider's discovery document: " + e.getMessage());
        }
        List<String> algorithms = new ArrayList<>(configured);
        if (algorithms.isEmpty()) {
            for (JsonNode alg : doc.path("id_token_signing_alg_values_supported")) {
                if (alg.isTextual() && IdpPin.ACCEPTED_ALGORITHMS.contains(alg.asText()) && !algorithms.contains(alg.asText())) {
                    algorithms.add(alg.asText());
                }
            }
        }
        if (algorithms.isEmpty()) {
            throw CotalException.failedPrecondition("the provider's discovery document: "
                    + "id_token_signing_alg_values_supported names none of " + IdpPin.ACCEPTED_ALGORITHMS);
        }
        return new IdpPin(IdpPin.Kind.OIDC, issuer, issuer, clientId, jwksUri, algorithms);
    }

    /**
     * A JWKS URI obeys the transport rule: https, or http on a loopback host ({@link IdpPin#loopback});
     * a host; no user info or fragment.
     */
    static void checkJwksUri(String jwksUri) {
        URI uri;
        try {
            uri = new URI(jwksUri == null ? "" : jwksUri);
        } catch (URISyntaxException e) {
            throw CotalException.badRequest("jwks_uri", "not a URL");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (uri.getHost() == null || uri.getRawUserInfo() != null || uri.getRawFragment() != null
                || !(scheme.equals("https") || scheme.equals("http") && IdpPin.loopback(uri.getHost()))) {
            throw CotalException.badRequest("jwks_uri", "must be https (http only on loopback: 127.0.0.1, ::1 or"
                    + " localhost) with a host"
                    + " and no user info or fragment");
        }
    }

    private static JsonNode fetch(URI where) {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
                .followRedirects(HttpClient.Redirect.NEVER).build();
        try {
            HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(where).timeout(Duration.ofSeconds(5))
                    .header("Accept", "application/json").GET().build(), HttpResponse.BodyHandlers.ofByteArray());
            if (response.statusCode() != 200 || response.body().length > MAX_BYTES) {
                throw new CotalException(ErrorCode.UNAVAILABLE, "the identity provider's discovery document answered "
                        + response.statusCode() + (response.body().length > MAX_BYTES ? " with more than 64 KiB" : ""));
            }
            return JSON.readTree(response.body());
        } catch (CotalException e) {
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CotalException(ErrorCode.UNAVAILABLE, "interrupted reading the identity provider's discovery document", e);
        } catch (java.io.IOException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "cannot read the identity provider's discovery document ("
                    + e.getClass().getSimpleName() + ")", e);
        }
    }
}
