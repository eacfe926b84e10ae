package ai.cotal.auth.exchange;

import ai.cotal.auth.internal.plane.AuthorityPlaneImpl;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.Grant;
import ai.cotal.auth.InboxNonce;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.internal.callout.AuthCallout;
import ai.cotal.auth.internal.callout.CalloutOptions;
import ai.cotal.auth.PlaneFixture;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Nats;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #16 part 2 on the real broker, with real sockets: a peer past its connection cap is closed
 * at once, a request that does not arrive within the read deadline is cut unanswered, the loopback
 * face refuses a missing capability before reading a body, and a face at its connection cap leaves
 * the callout and the plane answering good clients. Attackers bind 127.0.0.2; good clients use
 * 127.0.0.1 (both loopback).
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class SlowClientBrokerTest {
    static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";
    static final String GOOD = "{\"owner\":\"" + OWNER + "\",\"actor\":\"agent1\",\"actorToken\":\"agent-secret\"}";
    private final PlaneFixture f = new PlaneFixture();
    private final CalloutAuth callout = CalloutAuth.create("alpha", f.broker, f.space.accountPublicKey(), f.clock);
    private final HttpClient http = HttpClient.newHttpClient();
    private final InetAddress attacker = loopback2();
    private NatsBroker nats;
    private AuthAuthorityPlane plane;
    private AuthCallout responder;

    @TempDir
    Path stateDir;

    private static InetAddress loopback2() {
        try {
            return InetAddress.getByName("127.0.0.2");
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    @BeforeEach
    void open(NatsBrokers brokers) throws Exception {
        nats = brokers.start(b -> ServerConfig.render(f.broker, List.of(f.space), ServerConfigOptions.builder()
                .transport(Transport.plaintext()).storeDir(b.storeDir()).extraAccounts(List.of(callout.jwt())).build()));
        plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
        responder = AuthCallout.start(CalloutOptions.builder().server(nats.url()).callout(callout)
                .plane(((AuthorityPlaneImpl) plane).calloutAuthority())
                .signer(new SpaceAuth(f.broker, f.space).strip()).build());
        plane.ledger().grantManagedActor(Principal.of(OWNER, "agent1"), Grant.of(List.of("chat"), List.of(), List.of()),
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest("agent-secret"
                        .getBytes(StandardCharsets.UTF_8))), new LifecycleUid("abcdefghijklmnopqrstuvwxyz"));
    }

    @AfterEach
    void close() {
        responder.close();
        plane.close();
    }

    private TokenExchange start(ExchangeOptions.Builder options) {
        return TokenExchange.start(options.plane(plane).stateDir(stateDir)
                .publicAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build());
    }

    private String capability() throws Exception {
        return new ObjectMapper().readTree(Files.readString(stateDir.resolve(TokenExchange.DISCOVERY_FILE)))
                .path("capability").asText();
    }

    /** A good client: a bearer from {@code url}'s {@code /exchange}, then a connect through the callout. */
    private void goodClient(String url, String capability, String nonce) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url + "/exchange"))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString(GOOD));
        if (capability != null) {
            request.header("Authorization", "Bearer " + capability);
        }
        HttpResponse<String> answer = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, answer.statusCode(), answer.body());
        String bearer = new ObjectMapper().readTree(answer.body()).path("token").asText();
        Connection connection = Nats.connect(new io.nats.client.Options.Builder().server(nats.url())
                .authHandler(callout.sentinelCreds().authHandler()).token(bearer.toCharArray()).connectionName(nonce)
                .inboxPrefix(InboxNonce.inboxPrefix(nonce)).maxControlLine(ServerConfig.MAX_CONTROL_LINE)
                .connectionTimeout(Duration.ofSeconds(10)).noReconnect().build());
        assertEquals(Connection.Status.CONNECTED, connection.getStatus(), "the callout admitted the good client");
        connection.close();
    }

    private static int port(String url) {
        return URI.create(url).getPort();
    }

    @Test
    void aPeerPastItsCapIsClosedAtOnceWhileGoodClientsAreServed() throws Exception {
        try (TokenExchange exchange = start(ExchangeOptions.builder().limits(FaceLimits.DEFAULT.withConnections(64, 4)));
             RawClients raw = new RawClients(attacker)) {
            int port = port(exchange.publicUrl().orElseThrow());
            for (int i = 0; i < 4; i++) {
                assertEquals(200, raw.open(port).request("GET /health HTTP/1.1\r\nHost: x\r\n\r\n").status(),
                        "within the cap a connection is served (and kept alive)");
            }
            for (int i = 0; i < 4; i++) {
                RawClients.Raw excess = raw.open(port);
                assertTrue(excess.closedByServer(), "a connection past the peer's cap is closed by the server");
            }
            assertEquals(4, exchange.counts().closedAtPeerCap());
            goodClient(exchange.publicUrl().orElseThrow(), null, InboxNonce.of(Principal.of(OWNER, "agent1"), "slowpeer1"));
            goodClient(exchange.loopbackUrl(), capability(), InboxNonce.of(Principal.of(OWNER, "agent1"), "slowpeer2"));
            assertEquals(200, raw.get(0).request("GET /health HTTP/1.1\r\nHost: x\r\n\r\n").status(),
                    "the peer's first connections stay usable");
        }
    }

    @Test
    void everyClosedConnectionGivesItsPeerSlotBackExactlyOnce() throws Exception {
        int cap = 4;
        try (TokenExchange exchange = start(ExchangeOptions.builder().limits(FaceLimits.DEFAULT.withConnections(64, cap)));
             RawClients raw = new RawClients(attacker); RawClients operator = new RawClients(InetAddress.getLoopbackAddress())) {
            for (String url : List.of(exchange.publicUrl().orElseThrow(), exchange.loopbackUrl())) {
                int port = port(url);
                for (int i = 0; i < 3 * cap; i++) { // closed by the client, as curl does after its answer
                    RawClients.Raw once = raw.open(port);
                    assertEquals(200, once.request("GET /health HTTP/1.1\r\nHost: x\r\n\r\n").status(),
                            "connection " + i + " after " + i + " closed by the client, past the cap of " + cap);
                    once.close();
                    awaitNoConnections(exchange, url);
                }
                for (int i = 0; i < 3 * cap; i++) { // closed by the server after its answer
                    RawClients.Raw once = raw.open(port);
                    assertEquals(200, once.request("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                            .status(), "connection " + i + " after " + i + " closed by the server");
                    assertTrue(once.closedByServer());
                    once.close();
                    awaitNoConnections(exchange, url);
                }
                List<RawClients.Raw> held = new java.util.ArrayList<>();
                for (int i = 0; i < cap; i++) {
                    RawClients.Raw kept = raw.open(port);
                    assertEquals(200, kept.request("GET /health HTTP/1.1\r\nHost: x\r\n\r\n").status());
                    held.add(kept);
                }
                for (int i = 0; i < cap; i++) { // refused at the cap: closed at once by the server
                    assertTrue(raw.open(port).closedByServer(), "no release was counted twice: the cap holds");
                }
                for (RawClients.Raw kept : held) { // the client ends, then sees the server close: its slot is free
                    kept.endOutput();
                    assertTrue(kept.closedByServer());
                }
                awaitNoConnections(exchange, url);
                assertEquals(200, raw.open(port).request("GET /health HTTP/1.1\r\nHost: x\r\n\r\n").status(),
                        "the peer is served again once its connections are closed");
                assertEquals(200, operator.open(port).request("GET /health HTTP/1.1\r\nHost: x\r\n\r\n").status(),
                        "the operator's address was never locked out");
            }
        }
    }

    @Test
    void theTrustedProxyCountsOnlyAgainstTheFaceCap() throws Exception {
        try (TokenExchange exchange = start(ExchangeOptions.builder().limits(FaceLimits.DEFAULT.withConnections(64, 2))
                .trustedProxy(attacker)); RawClients raw = new RawClients(attacker)) {
            int port = port(exchange.publicUrl().orElseThrow());
            for (int i = 0; i < 6; i++) {
                assertEquals(200, raw.open(port).request("GET /health HTTP/1.1\r\nHost: x\r\n\r\n").status(),
                        "the proxy's connections are not held to the per-peer cap");
            }
            assertEquals(0, exchange.counts().closedAtPeerCap());
            assertEquals(6, exchange.publicConnections());
        }
    }

    @Test
    void aRequestThatDoesNotArriveWithinTheReadDeadlineIsCutUnanswered() throws Exception {
        try (TokenExchange exchange = start(ExchangeOptions.builder().limits(FaceLimits.DEFAULT.withReadDeadline(Duration.ofSeconds(1))));
             RawClients raw = new RawClients(attacker)) {
            RawClients.Raw drip = raw.open(port(exchange.publicUrl().orElseThrow()));
            drip.drip("POST /exchange HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Slow: "
                    + "a".repeat(4000), 20);
            assertTrue(drip.closedByServer(), "headers sent byte by byte are cut at the deadline");
            int sent = drip.dripped();
            assertTrue(sent > 10 && sent < 4000, "the server cut a client that kept sending (" + sent + " bytes)");
            assertTrue(drip.received().isEmpty(), "unanswered: " + drip.received());

            RawClients.Raw stalled = raw.open(port(exchange.loopbackUrl()));
            stalled.send("POST /exchange HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer "
                    + capability() + "\r\nContent-Length: " + GOOD.length() + "\r\n\r\n" + GOOD.substring(0, 20));
            assertTrue(stalled.closedByServer(), "a body that stops half way is cut at the deadline");
            assertTrue(stalled.received().isEmpty(), "the half body was not served: " + stalled.received());
            assertTrue(exchange.counts().cutAtReadDeadline() >= 2, exchange.counts().toString());

            RawClients.Raw idle = raw.open(port(exchange.loopbackUrl()));
            assertEquals(200, idle.request("GET /health HTTP/1.1\r\nHost: x\r\n\r\n").status());
            assertTrue(idle.closedByServer(), "an idle keep-alive connection is closed after the deadline");
            goodClient(exchange.publicUrl().orElseThrow(), null, InboxNonce.of(Principal.of(OWNER, "agent1"), "slowcut1"));
        }
    }

    @Test
    void theLoopbackFaceRefusesAMissingCapabilityBeforeReadingTheBody() throws Exception {
        try (TokenExchange exchange = start(ExchangeOptions.builder()); RawClients raw = new RawClients(attacker)) {
            int port = port(exchange.loopbackUrl());
            String headers = "POST /exchange HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 50000000\r\n";
            RawClients.Raw none = raw.open(port);
            RawClients.Answer refused = none.request(headers + "\r\n"); // not one body byte is sent
            assertEquals(401, refused.status(), refused.text());
            assertTrue(refused.text().toLowerCase(java.util.Locale.ROOT).contains("connection: close"), refused.text());
            assertTrue(none.closedByServer(), "the connection closes without reading the body");

            RawClients.Raw wrong = raw.open(port);
            assertEquals(401, wrong.request(headers + "Authorization: Bearer wrong\r\n\r\n").status());
            RawClients.Raw oversized = raw.open(port);
            assertEquals(413, oversized.request(headers + "Authorization: Bearer " + capability() + "\r\n\r\n").status(),
                    "the declared size is refused before the body too");
            RawClients.Raw huge = raw.open(port);
            RawClients.Answer tooLong = huge.request("GET /health HTTP/1.1\r\nHost: x\r\nX-Pad: " + "p".repeat(10_000)
                    + "\r\n\r\n");
            assertEquals(431, tooLong.status(), "headers over 8 KiB");
            assertTrue(tooLong.text().endsWith("{\"error\":\"request header fields too large\"}"), tooLong.text());
            RawClients.Raw chunked = raw.open(port);
            chunked.send("POST /exchange HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer "
                    + capability() + "\r\nTransfer-Encoding: chunked\r\n\r\n" + Integer.toHexString(70_000) + "\r\n"
                    + "a".repeat(70_000) + "\r\n");
            RawClients.Answer endless = chunked.answer(); // no last chunk is ever sent
            assertEquals(413, endless.status(), "an undeclared body is cut at 64 KiB: " + endless.text());
            assertTrue(chunked.closedByServer(), "and its rest is not read");
        }
    }

    @Test
    void aFaceAtItsConnectionCapLeavesTheCalloutAndThePlaneAnswering() throws Exception {
        try (TokenExchange exchange = start(ExchangeOptions.builder().limits(FaceLimits.DEFAULT.withConnections(6, 6)));
             RawClients raw = new RawClients(attacker)) {
            int port = port(exchange.publicUrl().orElseThrow());
            for (int i = 0; i < 6; i++) {
                assertEquals(200, raw.open(port).request("GET /health HTTP/1.1\r\nHost: x\r\n\r\n").status());
            }
            assertEquals(6, exchange.publicConnections(), "the public face is at its cap");
            RawClients.Raw excess = raw.open(port); // past the cap: closed at once, or left in the kernel's backlog
            excess.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");

            // the other face and the callout answer
            goodClient(exchange.loopbackUrl(), capability(), InboxNonce.of(Principal.of(OWNER, "agent1"), "slowcap1"));
            plane.ledger().grantActor(Principal.of(OWNER, "laptop"), Grant.of(List.of("chat"), List.of(), List.of()));
            assertTrue(plane.ledger().find(Principal.of(OWNER, "laptop")).isPresent(), "the plane answers");
            assertEquals(6, exchange.publicConnections(), "the excess was not taken in: the face holds its cap");

            raw.get(0).close(); // slots free: the face accepts again
            raw.get(1).close();
            goodClient(exchange.publicUrl().orElseThrow(), null, InboxNonce.of(Principal.of(OWNER, "agent1"), "slowcap2"));
        }
    }

    /**
     * Waits, at most 10 s, until the face of {@code url} counts no open connection: the face
     * hears of a close just after the client sees it, so the next connect could otherwise race
     * the release of the slot it needs. A slot that is never given back still fails the test.
     */
    private static void awaitNoConnections(TokenExchange exchange, String url) throws InterruptedException {
        java.util.function.IntSupplier open = url.equals(exchange.loopbackUrl()) ? exchange::loopbackConnections
                : exchange::publicConnections;
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (open.getAsInt() > 0) {
            assertTrue(System.nanoTime() < deadline, "the face still counts " + open.getAsInt() + " open connections");
            Thread.sleep(5);
        }
    }
}
