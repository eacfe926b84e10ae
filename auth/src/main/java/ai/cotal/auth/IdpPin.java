package ai.cotal.auth;

import ai.cotal.auth.internal.text.StateFileRefusal;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.workspace.PrivateFiles;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The identity provider a space trusts, pinned in {@code idp.json} under the state directory
 * (SPEC §13.14). Two kinds: {@link Kind#STOCK} {@code {ver: 1, url, issuer, audience, jwksUri}}
 * (issuer and audience the URL's origin, the JWKS at {@code <url>/jwks}, EdDSA only; a file
 * without {@code kind} is this kind) and {@link Kind#OIDC} {@code {ver: 1, kind: "oidc", url,
 * issuer, audience, jwksUri, algorithms}} (any OpenID Connect provider: issuer and JWKS from its
 * discovery document, read once at pin time, the audience its client id). URLs are https, or http
 * only on a loopback host (a literal loopback address or {@code localhost}). Re-pinning to another
 * provider is refused; the same oidc provider with other algorithms is re-pinned (logged).
 *
 * @param kind the kind of pin
 * @param url the provider's URL (a stock pin's normalized URL; an oidc pin's issuer)
 * @param issuer the exact {@code iss} a token must carry
 * @param audience the audience a token must name (an oidc pin's client id)
 * @param jwksUri where the provider's public keys are fetched
 * @param algorithms the JWS algorithms a token may use (a subset of {@link #ACCEPTED_ALGORITHMS})
 */
public record IdpPin(Kind kind, String url, String issuer, String audience, String jwksUri, List<String> algorithms) {
    static final String FILE = "idp.json";
    /** Every JWS algorithm a pin may accept: never {@code none}, never an HMAC algorithm. */
    public static final List<String> ACCEPTED_ALGORITHMS = List.of("RS256", "RS384", "RS512", "PS256", "PS384", "PS512",
            "ES256", "ES384", "ES512", "EdDSA");
    private static final Logger LOG = LoggerFactory.getLogger(IdpPin.class);

    /** The kind of a pin. */
    public enum Kind {
        /** The stock EdDSA provider shape. */
        STOCK,
        /** Any standard OpenID Connect provider. */
        OIDC
    }

    /** A stock pin (algorithms {@code [EdDSA]}). */
    public IdpPin(String url, String issuer, String audience, String jwksUri) {
        this(Kind.STOCK, url, issuer, audience, jwksUri, List.of("EdDSA"));
    }

    /** Copies the algorithms. */
    public IdpPin {
        algorithms = List.copyOf(algorithms);
    }

    private record Document(Integer ver, String kind, String url, String issuer, String audience, String jwksUri,
            List<String> algorithms) {
    }

    /** Pins {@code url} for the space at {@code stateDir}; the same URL again is a no-op, another is refused. */
    public static IdpPin pin(Path stateDir, String url) {
        IdpPin wanted = derive(url);
        return keepOrWrite(stateDir, wanted, () -> wanted);
    }

    /**
     * Pins the OpenID Connect provider {@code issuer} with the client id {@code clientId} (SPEC
     * §13.14): reads its discovery document once (none is read when the same provider is already
     * pinned); {@code algorithms} empty means the accepted ones the provider advertises. When the
     * same issuer and client id are pinned, {@link #sameOidcProvider} decides: an empty list keeps
     * the pin's, another list re-pins (both logged). Another pin already there is refused
     * {@code failed-precondition}; an unreachable provider is {@code unavailable} and nothing is
     * written. Not safe against a concurrent pin of the same state directory.
     */
    public static IdpPin pinOidc(Path stateDir, String issuer, String clientId, List<String> algorithms) {
        checkOidc(issuer, clientId, algorithms);
        Optional<IdpPin> current = read(stateDir);
        Optional<IdpPin> same = current.flatMap(pin -> sameOidcProvider(pin, issuer, clientId, algorithms));
        if (same.isPresent()) {
            if (!same.get().equals(current.get())) {
                write(stateDir, same.get()); // the re-pin: atomic, like the first write
            }
            return same.get();
        }
        // another pin already there is refused; none: discovery decides the rest of the pin
        return keepOrWrite(stateDir, new IdpPin(Kind.OIDC, issuer, issuer, clientId, "", List.of()),
                () -> OidcDiscovery.discover(issuer, clientId, algorithms));
    }

    /**
     * The rule for an oidc pin of the provider that is already pinned (SPEC §13.14), for every
     * placement of the pin: empty when {@code current} is not the oidc pin of {@code issuer} and
     * {@code clientId} (then the caller's another-provider rule applies); else the pin to keep,
     * which is {@code current} itself when {@code algorithms} is empty (logged: the pin's are
     * kept) or equal to its list, and {@code current} with {@code algorithms} otherwise, a
     * re-pin of the same provider that the caller writes (logged; owners do not change, they
     * derive from {@code [iss, sub]}). Reads and writes nothing; {@code algorithms} must have
     * passed {@link #checkOidc}. Thread-safe.
     */
    public static Optional<IdpPin> sameOidcProvider(IdpPin current, String issuer, String clientId, List<String> algorithms) {
        if (current.kind() != Kind.OIDC || !current.issuer().equals(issuer) || !current.audience().equals(clientId)) {
            return Optional.empty();
        }
        if (algorithms.isEmpty()) {
            LOG.info("idp.json: no algorithms configured; keeping the pin's {} for {}", current.algorithms(), issuer);
            return Optional.of(current);
        }
        List<String> wanted = List.copyOf(algorithms);
        if (wanted.equals(current.algorithms())) {
            return Optional.of(current);
        }
        LOG.warn("idp.json: re-pinned {} (client {}) from algorithms {} to {}; owners unchanged", issuer, clientId,
                current.algorithms(), wanted);
        return Optional.of(new IdpPin(Kind.OIDC, current.url(), current.issuer(), current.audience(), current.jwksUri(),
                wanted));
    }

    /**
     * The stock pin {@code url} yields (SPEC §13.14): the URL normalized, issuer and audience its
     * origin, the JWKS at {@code <url>/jwks}, EdDSA only. Pure: nothing is read or written.
     *
     * @throws CotalException {@code bad-request} naming {@code url} when it breaks the transport rule
     */
    public static IdpPin stock(String url) {
        return derive(url);
    }

    /**
     * The oidc pin of {@code issuer} for {@code clientId} (SPEC §13.14): validates the
     * configuration, then reads the provider's discovery document once (its issuer, its JWKS URI,
     * and with {@code algorithms} empty the accepted ones it advertises). Writes nothing; safe
     * from any thread.
     *
     * @throws CotalException {@code bad-request} naming the field, {@code failed-precondition} for
     *         a discovery document that breaks the rules, {@code unavailable} for an unreachable provider
     */
    public static IdpPin discover(String issuer, String clientId, List<String> algorithms) {
        checkOidc(issuer, clientId, algorithms);
        return OidcDiscovery.discover(issuer, clientId, algorithms);
    }

    /**
     * Checks that a stored pin follows its kind's rules (SPEC §13.14), as every read of a pin
     * does: a stock pin's fields follow from its URL; an oidc pin's URL is its issuer, its client
     * id and algorithms are valid and not empty, its JWKS URI is https (http only on loopback).
     *
     * @throws CotalException {@code bad-request} naming what breaks the rule
     */
    public static void checkStored(IdpPin pin) {
        if (pin.kind() == Kind.OIDC) {
            if (pin.url() == null || !pin.url().equals(pin.issuer())) {
                throw CotalException.badRequest("url", "must be the issuer");
            }
            if (pin.algorithms().isEmpty()) {
                throw CotalException.badRequest("algorithms", "required, not empty");
            }
            checkOidc(pin.issuer(), pin.audience(), pin.algorithms());
            OidcDiscovery.checkJwksUri(pin.jwksUri());
        } else if (!derive(pin.url()).equals(pin)) {
            throw CotalException.badRequest("pin", "issuer, audience or jwksUri do not follow from url");
        }
    }

    /** Validates an oidc pin's configuration ({@code bad-request} naming the field). */
    public static void checkOidc(String issuer, String clientId, List<String> algorithms) {
        try {
            derive(issuer); // the transport rule
        } catch (CotalException e) {
            throw CotalException.badRequest("oidcIssuer", "must be https (http only on loopback: 127.0.0.1, ::1 or"
                    + " localhost) with a host"
                    + " and no user info, query or fragment");
        }
        if (clientId == null || !clientId.matches("[\\x21-\\x7e]{1,256}")) {
            throw CotalException.badRequest("oidcClientId", "1 to 256 printable ASCII characters");
        }
        if (algorithms == null) {
            throw CotalException.badRequest("algorithms", "required (empty: the accepted ones the provider advertises)");
        }
        for (String alg : algorithms) {
            if (!ACCEPTED_ALGORITHMS.contains(alg)) {
                throw CotalException.badRequest("algorithms", "each must be one of " + ACCEPTED_ALGORITHMS);
            }
        }
    }

    private static IdpPin keepOrWrite(Path stateDir, IdpPin wanted, java.util.function.Supplier<IdpPin> make) {
        Optional<IdpPin> current = read(stateDir);
        if (current.isPresent()) {
            if (!current.get().equals(wanted)) {
                throw new CotalException(ErrorCode.FAILED_PRECONDITION, "idp.json: the space is pinned to "
                        + current.get().url() + "; re-pinning to another identity provider is refused");
            }
            return current.get();
        }
        IdpPin pin = make.get();
        write(stateDir, pin);
        return pin;
    }

    private static void write(Path stateDir, IdpPin pin) {
        Path file = stateDir.resolve(FILE);
        try { // the private-file calls name paths: the refusals name the pin instead
            PrivateFiles.ensureDirectory(stateDir, stateDir);
            PrivateFiles.write(file, ClosedJson.write(ClosedJson.cotal(), pin.kind() == Kind.STOCK
                    ? new Document(1, null, pin.url(), pin.issuer(), pin.audience(), pin.jwksUri(), null)
                    : new Document(1, "oidc", pin.url(), pin.issuer(), pin.audience(), pin.jwksUri(), pin.algorithms())));
        } catch (CotalException e) {
            throw StateFileRefusal.of(e, FILE + " cannot be written");
        }
    }

    /**
     * The pin of the space at {@code stateDir}; empty when none; invalid files are {@code data-loss}.
     * The state directory and its ancestors up to {@code .cotal} must be private (SPEC §7.1).
     */
    public static Optional<IdpPin> read(Path stateDir) {
        Optional<byte[]> bytes;
        try { // the private-file calls name paths (in a message or a cause): the refusal names the pin
            if (!PrivateFiles.requirePrivateStateDirectory(stateDir)) { // never a pin another user planted
                return Optional.empty();
            }
            bytes = PrivateFiles.readNoFollow(stateDir.resolve(FILE));
        } catch (CotalException e) {
            throw StateFileRefusal.of(e, FILE + " cannot be read");
        }
        if (bytes.isEmpty()) {
            return Optional.empty();
        }
        try {
            Document doc = ClosedJson.read(ClosedJson.cotal(), bytes.get(), Document.class, FILE);
            if (doc.ver() == null || doc.ver() != 1) {
                throw CotalException.badRequest(FILE, "ver must be 1");
            }
            if ("oidc".equals(doc.kind())) {
                return Optional.of(oidcFrom(doc));
            }
            if (doc.kind() != null && !doc.kind().equals("stock")) {
                throw CotalException.badRequest("kind", "must be stock or oidc");
            }
            if (doc.algorithms() != null) {
                throw CotalException.badRequest("algorithms", "goes with the kind oidc only");
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

    private static IdpPin oidcFrom(Document doc) {
        if (doc.url() == null || !doc.url().equals(doc.issuer())) {
            throw CotalException.badRequest("url", "must be the issuer");
        }
        if (doc.algorithms() == null) {
            throw CotalException.badRequest("algorithms", "required, not empty");
        }
        IdpPin pin = new IdpPin(Kind.OIDC, doc.url(), doc.issuer(), doc.audience(), doc.jwksUri(), doc.algorithms());
        checkStored(pin); // the rule a store pin's every read applies too
        return pin;
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
            throw CotalException.badRequest("url", "must be https (http only on loopback: 127.0.0.1, ::1 or localhost)");
        }
        String origin = scheme + "://" + uri.getHost().toLowerCase(java.util.Locale.ROOT) + (uri.getPort() < 0 ? "" : ":" + uri.getPort());
        String path = uri.getRawPath() == null ? "" : uri.getRawPath().replaceAll("/+$", "");
        String normalized = origin + path;
        return new IdpPin(normalized, origin, origin, normalized + "/jwks");
    }

    /** A literal loopback address or {@code localhost} (RFC 6761 reserves it for loopback); no other name is resolved. */
    static boolean loopback(String host) {
        String bare = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
        if (bare.equalsIgnoreCase("localhost")) {
            return true;
        }
        if (!bare.matches("[0-9.]+|[0-9a-fA-F:]+")) {
            return false; // other names are not resolved: literal loopback addresses only
        }
        try {
            return InetAddress.getByName(bare).isLoopbackAddress();
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    /** The grammar of an ID token's {@code sub} an operator names: 1 to 255 printable ASCII characters, no space. */
    private static final java.util.regex.Pattern SUBJECT = java.util.regex.Pattern.compile("[\\x21-\\x7E]{1,255}");

    /**
     * Checks a subject an operator names for a person (the {@code sub} of the person's ID token,
     * from which the owner is derived as at an exchange, SPEC §13.18).
     *
     * @throws CotalException {@code bad-request} naming {@code subject} unless it is 1 to 255
     *     printable ASCII characters without spaces
     */
    public static void checkSubject(String subject) {
        if (subject == null || !SUBJECT.matcher(subject).matches()) {
            throw CotalException.badRequest("subject", "must be 1 to 255 printable ASCII characters, no spaces");
        }
    }
}
