package ai.cotal.auth.exchange;

import ai.cotal.auth.IdpPin;
import ai.cotal.core.CotalException;
import ai.cotal.core.internal.json.ClosedJson;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The join bundle the public face serves at {@code GET /.well-known/cotal-mesh} (SPEC §13.17):
 * {@code {space, server, tlsRequired, userAuth: {provider, idp?, endpoints: {url,
 * managerAuthorityUrl, agentProvisioningUrl?}}, sentinelCreds}}, everything a client that knows
 * only the public URL needs to exchange a token and connect through the auth callout. The
 * sentinel credential it carries is public by design: it can do nothing but reach the callout,
 * which admits only a valid bearer. Also the validation of the two options that shape it.
 */
public final class JoinBundle {
    /** The route, on the public face only. */
    public static final String ROUTE = "/.well-known/cotal-mesh";
    private static final Set<String> SERVER_SCHEMES = Set.of("nats", "tls", "ws", "wss");

    private JoinBundle() {
    }

    /**
     * Checks the bundle's two options of a face's builder: each, when set, is valid and needs the
     * public face the bundle is served on.
     *
     * @throws CotalException {@code bad-request} naming the option
     */
    public static void checkOptions(String advertisedServer, String agentProvisioningUrl, boolean publicFace) {
        if (advertisedServer != null) {
            checkAdvertisedServer(advertisedServer);
            if (!publicFace) {
                throw CotalException.badRequest("advertisedServer", "needs publicAddress (the bundle is on the public face)");
            }
        }
        if (agentProvisioningUrl != null) {
            checkAgentProvisioningUrl(agentProvisioningUrl);
            if (!publicFace) {
                throw CotalException.badRequest("agentProvisioningUrl", "needs publicAddress (the bundle is on the public face)");
            }
        }
    }

    /**
     * Checks {@code advertisedServer}: an absolute {@code nats}, {@code tls}, {@code ws} or
     * {@code wss} URL with a host and without user info, query or fragment.
     *
     * @throws CotalException {@code bad-request} naming {@code advertisedServer}
     */
    public static String checkAdvertisedServer(String url) {
        URI uri = absolute(url, "advertisedServer");
        if (!SERVER_SCHEMES.contains(uri.getScheme().toLowerCase(Locale.ROOT))) {
            throw CotalException.badRequest("advertisedServer", "must be a nats, tls, ws or wss URL");
        }
        if (uri.getRawQuery() != null) {
            throw CotalException.badRequest("advertisedServer", "must not carry a query");
        }
        return url;
    }

    /**
     * Checks {@code agentProvisioningUrl}: an absolute {@code https} URL with a host and without
     * user info or fragment.
     *
     * @throws CotalException {@code bad-request} naming {@code agentProvisioningUrl}
     */
    public static String checkAgentProvisioningUrl(String url) {
        URI uri = absolute(url, "agentProvisioningUrl");
        if (!uri.getScheme().equalsIgnoreCase("https")) {
            throw CotalException.badRequest("agentProvisioningUrl", "must be an https URL");
        }
        return url;
    }

    private static URI absolute(String url, String field) {
        if (url == null || url.isBlank()) {
            throw CotalException.badRequest(field, "must be a URL");
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw CotalException.badRequest(field, "is not a URL");
        }
        if (uri.getScheme() == null || uri.getHost() == null || uri.getHost().isEmpty()) {
            throw CotalException.badRequest(field, "must be an absolute URL with a host");
        }
        if (uri.getRawUserInfo() != null) {
            throw CotalException.badRequest(field, "must not carry user info");
        }
        if (uri.getRawFragment() != null) {
            throw CotalException.badRequest(field, "must not carry a fragment");
        }
        return uri;
    }

    /** True when a client must speak TLS to {@code server}: its scheme is {@code tls} or {@code wss}. */
    static boolean tlsRequired(String server) {
        String scheme;
        try {
            scheme = new URI(server).getScheme();
        } catch (URISyntaxException e) {
            return false; // the service's own broker URL, which jnats accepted: not a TLS scheme
        }
        return scheme != null && (scheme.equalsIgnoreCase("tls") || scheme.equalsIgnoreCase("wss"));
    }

    /** The bundle's bytes for the public face bound at {@code publicUrl}. */
    static byte[] render(String space, String server, String sentinelCreds, String publicUrl, Optional<IdpPin> pin,
            Optional<String> agentProvisioningUrl) {
        Map<String, Object> endpoints = new LinkedHashMap<>();
        endpoints.put("url", publicUrl);
        endpoints.put("managerAuthorityUrl", publicUrl + ManagerAuthorityRoute.ISSUE);
        agentProvisioningUrl.ifPresent(url -> endpoints.put("agentProvisioningUrl", url));
        Map<String, Object> userAuth = new LinkedHashMap<>();
        userAuth.put("provider", "cotal");
        pin.ifPresent(p -> {
            Map<String, Object> idp = new LinkedHashMap<>();
            idp.put("url", p.url());
            idp.put("issuer", p.issuer());
            idp.put("audience", p.audience());
            userAuth.put("idp", idp);
        });
        userAuth.put("endpoints", endpoints);
        Map<String, Object> bundle = new LinkedHashMap<>();
        bundle.put("space", space);
        bundle.put("server", server);
        bundle.put("tlsRequired", tlsRequired(server));
        bundle.put("userAuth", userAuth);
        bundle.put("sentinelCreds", sentinelCreds);
        return ClosedJson.write(ClosedJson.cotal(), bundle);
    }
}
