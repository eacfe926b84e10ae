package ai.cotal.auth.exchange;

import ai.cotal.auth.internal.metrics.AuthMetrics;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.internal.json.ClosedJson;
import ai.cotal.workspace.PrivateFiles;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The token-exchange faces (SPEC §13.17) on Eclipse Jetty (core, no servlets): a loopback face on
 * {@code 127.0.0.1} that requires the capability from {@code <stateDir>/auth-service.json}, and an
 * optional public face. Routes (exact): {@code GET /health}, {@code GET /jwks}
 * ({@code Cache-Control: max-age=300}), {@code POST /exchange} and the service-endpoint routes.
 * Each face has its own bounded thread pool, a cap on open connections, a cap per peer and a read
 * deadline per request ({@link ExchangeOptions}), so slow or many clients on a face cannot take
 * threads or file descriptors from the plane and the callout. Refused exchanges are throttled (per
 * face on loopback, per client on the public face); while throttled, every POST is refused before
 * anything is checked. No CORS headers are ever sent. {@link #close()} withdraws the capability
 * file and stops both faces.
 */
public final class TokenExchange implements AutoCloseable {
    /** The capability file under the state directory. */
    public static final String DISCOVERY_FILE = "auth-service.json";
    static final int MAX_BODY = ExchangeRoutes.MAX_BODY;
    private static final Logger LOG = LoggerFactory.getLogger(TokenExchange.class);

    private record Discovery(Integer ver, String url, String capability) {
        @Override
        public String toString() {
            return "Discovery[" + url + "]";
        }
    }

    private final Path discoveryFile;
    private final byte[] capability;
    private final HttpFace loopback;
    private final Optional<HttpFace> publicFace;

    private TokenExchange(Path discoveryFile, byte[] capability, HttpFace loopback, Optional<HttpFace> publicFace) {
        this.discoveryFile = discoveryFile;
        this.capability = capability;
        this.loopback = loopback;
        this.publicFace = publicFace;
    }

    /**
     * Binds the faces and writes the discovery file ({@code {ver: 1, url, capability}}, 0600),
     * replacing any earlier one atomically. A failed start leaves nothing bound.
     */
    public static TokenExchange start(ExchangeOptions options) {
        byte[] raw = new byte[32];
        new SecureRandom().nextBytes(raw);
        byte[] capability = Base64.getUrlEncoder().withoutPadding().encode(raw);
        ExchangeRoutes routes = new ExchangeRoutes(options, capability);
        HttpFace loopback = null;
        HttpFace publicFace = null;
        try {
            loopback = HttpFace.start(AuthMetrics.Face.LOOPBACK, new InetSocketAddress(InetAddress.getLoopbackAddress(),
                    options.loopbackPort()), HttpFace.Bounds.of(options), options.metrics(), Optional.empty(),
                    call -> routes.serve(call, false));
            if (options.publicAddress().isPresent()) {
                publicFace = HttpFace.start(AuthMetrics.Face.PUBLIC, options.publicAddress().get(), HttpFace.Bounds.of(options),
                        options.metrics(), options.trustedProxy(), call -> routes.serve(call, true));
                routes.publicFaceBound(url(publicFace));
            }
            TokenExchange exchange = new TokenExchange(options.stateDir().resolve(DISCOVERY_FILE), capability, loopback,
                    Optional.ofNullable(publicFace));
            PrivateFiles.ensureDirectory(options.stateDir(), options.stateDir());
            PrivateFiles.write(exchange.discoveryFile, ClosedJson.write(ClosedJson.cotal(),
                    new Discovery(1, exchange.loopbackUrl(), new String(capability, StandardCharsets.US_ASCII))));
            return exchange;
        } catch (RuntimeException e) {
            if (publicFace != null) {
                publicFace.close();
            }
            if (loopback != null) {
                loopback.close();
            }
            throw e;
        }
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String loopbackUrl() {
        return "http://127.0.0.1:" + loopback.address().getPort();
    }

    /**
     * The loopback face's capability, the {@code Authorization: Bearer} its POSTs need (the same
     * as {@code auth-service.json} holds). A secret: never log it.
     */
    public String loopbackCapability() {
        return new String(capability, StandardCharsets.US_ASCII);
    }

    /** The public face's URL, when it runs. */
    public Optional<String> publicUrl() {
        return publicFace.map(TokenExchange::url);
    }

    /** {@code http://<bound host>:<bound port>}: the real port, also when the options asked for 0. */
    private static String url(HttpFace face) {
        String host = face.address().getHostString();
        return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + face.address().getPort();
    }

    /** Connections open now on the loopback face (monitoring; the face's cap counts these). */
    public int loopbackConnections() {
        return loopback.openConnections();
    }

    /** Connections open now on the public face (0 when it does not run). */
    public int publicConnections() {
        return publicFace.map(HttpFace::openConnections).orElse(0);
    }

    /**
     * Connections the faces closed at once because their peer was at {@code maxConnectionsPerPeer},
     * and connections cut because a request did not arrive within {@code readDeadline}, since start.
     */
    public FaceCounts counts() {
        long peerCap = loopback.refusedByPeerCap() + publicFace.map(HttpFace::refusedByPeerCap).orElse(0L);
        long deadline = loopback.cutByReadDeadline() + publicFace.map(HttpFace::cutByReadDeadline).orElse(0L);
        return new FaceCounts(peerCap, deadline);
    }

    /** What {@link #counts()} reports. */
    public record FaceCounts(long closedAtPeerCap, long cutAtReadDeadline) {
    }

    /**
     * Deletes {@code auth-service.json} if, and only if, it still holds this exchange's capability
     * (a later service's file is left alone); returns whether it deleted it. Idempotent; called by
     * {@link #close()}. An unreadable or foreign file is kept and logged without its content. (A
     * file replaced between the read and the delete is a race this cannot close; a later service
     * rewrites its file at start.)
     */
    public boolean withdrawDiscovery() {
        byte[] text;
        try {
            text = Files.readAllBytes(discoveryFile);
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException e) {
            LOG.warn("token exchange: the capability file is unreadable; left in place");
            return false;
        }
        String held;
        try {
            held = ClosedJson.read(ClosedJson.cotal(), text, Discovery.class, DISCOVERY_FILE).capability();
        } catch (CotalException e) {
            LOG.warn("token exchange: the capability file is not this service's; left in place");
            return false;
        }
        if (held == null || !MessageDigest.isEqual(capability, held.getBytes(StandardCharsets.US_ASCII))) {
            return false;
        }
        try {
            return Files.deleteIfExists(discoveryFile);
        } catch (IOException e) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "token exchange: cannot remove the capability file", e);
        }
    }

    /**
     * Withdraws the capability file, then stops both faces. Never throws: a file that cannot be
     * removed is logged (without its path) and the faces stop all the same.
     */
    @Override
    public void close() {
        try {
            withdrawDiscovery();
        } catch (CotalException e) {
            LOG.warn("token exchange: the capability file could not be withdrawn");
        } finally {
            publicFace.ifPresent(HttpFace::close);
            loopback.close();
        }
    }
}
