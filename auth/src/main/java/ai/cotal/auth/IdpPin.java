package ai.cotal.auth;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.workspace.PrivateFiles;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The identity provider a space trusts, pinned in {@code idp.json} under the state directory:
 * {@code {ver: 1, url, issuer, audience, jwksUri}}. The URL is https, or http only on a loopback
 * address, with no query, fragment or user info; issuer and audience are its origin, the JWKS is
 * {@code <url>/jwks}. Re-pinning to another URL is refused.
 */
public record IdpPin(String url, String issuer, String audience, String jwksUri) {
    static final String FILE = "idp.json";

    private record Document(Integer ver, String url, String issuer, String audience, String jwksUri) {
    }

    /** Pins {@code url} for the space at {@code stateDir}; the same URL again is a no-op, another is refused. */
    public static IdpPin pin(Path stateDir, String url) {
        IdpPin wanted = derive(url);
        Optional<IdpPin> current = read(stateDir);
        if (current.isPresent()) {
            if (!current.get().equals(wanted)) {
                throw new CotalException(ErrorCode.FAILED_PRECONDITION, "idp.json: the space is pinned to "
                        + current.get().url() + "; re-pinning to another identity provider is refused");
            }
            return current.get();
        }
        Path file = stateDir.resolve(FILE);
        PrivateFiles.ensureDirectory(stateDir, stateDir);
        PrivateFiles.write(file, ClosedJson.write(ClosedJson.cotal(), new Document(1, wanted.url(), wanted.issuer(),
                wanted.audience(), wanted.jwksUri())));
        return wanted;
    }

    /**
     * The pin of the space at {@code stateDir}; empty when none; invalid files are {@code data-loss}.
     * The state directory and its ancestors up to {@code .cotal} must be private (SPEC §7.1).
     */
    public static Optional<IdpPin> read(Path stateDir) {
        if (!PrivateFiles.requirePrivateStateDirectory(stateDir)) { // #16.7: never a pin another user planted
            return Optional.empty();
        }
        Optional<byte[]> bytes = PrivateFiles.readNoFollow(stateDir.resolve(FILE));
        if (bytes.isEmpty()) {
            return Optional.empty();
        }
        try {
            Document doc = ClosedJson.read(ClosedJson.cotal(), bytes.get(), Document.class, FILE);
            if (doc.ver() == null || doc.ver() != 1) {
                throw CotalException.badRequest(FILE, "ver must be 1");
            }
            IdpPin pin = derive(doc.url());
            if (!pin.equals(new IdpPin(doc.url(), doc.issuer(), doc.audience(), doc.jwksUri()))) {
                throw CotalException.badRequest(FILE, "issuer, audience or jwksUri do not follow from url");
            }
            return Optional.of(pin);
        } catch (CotalException e) {
            throw new CotalException(ErrorCode.DATA_LOSS, "idp.json is invalid: " + e.getMessage(), e);
        }
    }

    /** The pin a URL yields, after normalization and the transport rule. */
    static IdpPin derive(String url) {
        URI uri;
        try {
            uri = new URI(url == null ? "" : url).normalize();
        } catch (URISyntaxException e) {
            throw CotalException.badRequest("url", "not a URL");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(java.util.Locale.ROOT);
        if (uri.getHost() == null || uri.getRawUserInfo() != null || uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw CotalException.badRequest("url", "needs a host and no user info, query or fragment");
        }
        if (!scheme.equals("https") && !(scheme.equals("http") && loopback(uri.getHost()))) {
            throw CotalException.badRequest("url", "must be https (http only on a loopback address)");
        }
        String origin = scheme + "://" + uri.getHost().toLowerCase(java.util.Locale.ROOT) + (uri.getPort() < 0 ? "" : ":" + uri.getPort());
        String path = uri.getRawPath() == null ? "" : uri.getRawPath().replaceAll("/+$", "");
        String normalized = origin + path;
        return new IdpPin(normalized, origin, origin, normalized + "/jwks");
    }

    private static boolean loopback(String host) {
        String bare = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
        if (!bare.matches("[0-9.]+|[0-9a-fA-F:]+")) {
            return false; // names are not resolved: only literal loopback addresses count
        }
        try {
            return InetAddress.getByName(bare).isLoopbackAddress();
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }
}
