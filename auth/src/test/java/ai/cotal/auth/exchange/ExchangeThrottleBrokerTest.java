package ai.cotal.auth.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.Grant;
import ai.cotal.auth.IdpPin;
import ai.cotal.auth.PlaneFixture;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import java.time.Clock;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #16 parts 6 and 9 on the real broker: a throttled face or client is refused before any
 * secret is checked (the right secret gets 429), wrong loopback capabilities are throttled
 * without ever throttling the right one, and behind a trusted proxy the per-client
 * throttle is keyed on the right-most untrusted {@code X-Forwarded-For} hop, never on a header
 * from anyone else.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class ExchangeThrottleBrokerTest {
    private static final String AGENT_OWNER = "u_abcdefghijklmnopqrstuvwxyz";
    private static final String GOOD = "{\"owner\":\"" + AGENT_OWNER + "\",\"actor\":\"agent1\",\"actorToken\":\"agent-secret\"}";
    private static final String BAD = "{\"owner\":\"" + AGENT_OWNER + "\",\"actor\":\"agent1\",\"actorToken\":\"guess\"}";
    private static final int LIMIT = 3;
    private final PlaneFixture f = new PlaneFixture();
    private final HttpClient http = HttpClient.newHttpClient();
    private final AtomicLong shift = new AtomicLong();
    /** The system clock, moved on by the test to let a window drain. */
    private final Clock clock = new ai.cotal.auth.TestClock(() -> System.currentTimeMillis() + shift.get());
    private TestIdp idp;
    private AuthAuthorityPlane plane;

    @TempDir
    Path stateDir;

    @BeforeEach
    void open(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
        idp = new TestIdp();
        IdpPin.pin(stateDir, idp.url());
        plane.ledger().grantManagedActor(Principal.of(AGENT_OWNER, "agent1"), Grant.of(List.of(), List.of(), List.of()),
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest("agent-secret"
                        .getBytes(StandardCharsets.UTF_8))), new LifecycleUid("abcdefghijklmnopqrstuvwxyz"));
    }

    @AfterEach
    void close() {
        idp.close();
        plane.close();
    }

    private TokenExchange start(ExchangeOptions.Builder options) {
        return TokenExchange.start(options.plane(plane).stateDir(stateDir).clock(clock)
                .limits(FaceLimits.DEFAULT.withRefusalsPerMinute(LIMIT)).build());
    }

    private HttpResponse<String> post(String url, String body, String capability, String... forwardedFor) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url + "/exchange"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (capability != null) {
            request.header("Authorization", "Bearer " + capability);
        }
        for (String hop : forwardedFor) {
            request.header("X-Forwarded-For", hop);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private String capability() throws Exception {
        return new ObjectMapper().readTree(Files.readString(stateDir.resolve(TokenExchange.DISCOVERY_FILE)))
                .path("capability").asText();
    }

    private static InetSocketAddress anyPort() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    }

    @Test
    void whileThrottledTheRightSecretIsRefusedBeforeItIsChecked() throws Exception {
        try (TokenExchange exchange = start(ExchangeOptions.builder().publicAddress(anyPort()))) {
            String cap = capability();
            String loopback = exchange.loopbackUrl();
            for (int i = 0; i < LIMIT; i++) {
                assertEquals(401, post(loopback, BAD, cap).statusCode());
            }
            HttpResponse<String> right = post(loopback, GOOD, cap);
            assertEquals(429, right.statusCode(), "the right secret while the loopback face is throttled: " + right.body());
            assertFalse(right.body().contains("token"), right.body());

            String face = exchange.publicUrl().orElseThrow();
            for (int i = 0; i < LIMIT; i++) {
                assertEquals(401, post(face, BAD, null).statusCode());
            }
            assertEquals(429, post(face, GOOD, null).statusCode(), "the right secret while the peer is throttled");

            shift.addAndGet(61_000); // the windows drain: the right secret is checked again, and passes
            assertEquals(200, post(loopback, GOOD, cap).statusCode());
            assertEquals(200, post(face, GOOD, null).statusCode());
        }
    }

    @Test
    void wrongCapabilitiesNeverThrottleTheRightOne() throws Exception {
        try (TokenExchange exchange = start(ExchangeOptions.builder())) {
            String loopback = exchange.loopbackUrl();
            for (int i = 0; i < LIMIT; i++) {
                assertEquals(401, post(loopback, GOOD, "wrong-capability").statusCode());
            }
            for (int round = 0; round < 3; round++) { // the guesser keeps its window full, round after round
                HttpResponse<String> guess = post(loopback, GOOD, "wrong-capability-" + round);
                assertEquals(429, guess.statusCode(), "a wrong capability past the window is throttled: " + guess.body());
                assertEquals(429, post(loopback, GOOD, null).statusCode(), "so is a missing one");
                HttpResponse<String> right = post(loopback, GOOD, capability());
                assertEquals(200, right.statusCode(), "the right capability is never throttled by others: " + right.body());
                assertTrue(right.body().contains("token"), right.body());
            }
            shift.addAndGet(61_000); // the window drains: a wrong capability is answered 401 again
            assertEquals(401, post(loopback, GOOD, "wrong-capability").statusCode());
        }
    }

    @Test
    void aForwardedForHeaderFromAnyoneButTheTrustedProxyIsIgnored() throws Exception {
        InetAddress elsewhere = InetAddress.getByName("127.0.0.2"); // the proxy is not this test's address
        try (TokenExchange exchange = start(ExchangeOptions.builder().publicAddress(anyPort()).trustedProxy(elsewhere))) {
            String face = exchange.publicUrl().orElseThrow();
            for (int i = 0; i < LIMIT; i++) {
                assertEquals(401, post(face, BAD, null, "203.0.113." + i).statusCode());
            }
            assertEquals(429, post(face, GOOD, null, "198.51.100.77").statusCode(),
                    "a spoofed X-Forwarded-For opens no fresh window: the direct peer is throttled");
        }
    }

    @Test
    void behindTheTrustedProxyEachForwardedClientHasItsOwnWindow() throws Exception {
        InetAddress proxy = InetAddress.getLoopbackAddress();
        try (TokenExchange exchange = start(ExchangeOptions.builder().publicAddress(anyPort()).trustedProxy(proxy))) {
            String face = exchange.publicUrl().orElseThrow();
            for (int i = 0; i < LIMIT; i++) {
                assertEquals(401, post(face, BAD, null, "203.0.113.1").statusCode());
            }
            assertEquals(429, post(face, GOOD, null, "203.0.113.1").statusCode(), "client one is throttled");
            assertEquals(200, post(face, GOOD, null, "203.0.113.2").statusCode(), "client two has its own window");
            assertEquals(429, post(face, GOOD, null, "198.51.100.9, 203.0.113.1, 127.0.0.1").statusCode(),
                    "multi-hop: the right-most hop that is not the proxy is the client");
            assertEquals(429, post(face, GOOD, null, "198.51.100.9", "203.0.113.1").statusCode(),
                    "several headers read as one list, in order");
            assertEquals(200, post(face, GOOD, null, "203.0.113.1, 198.51.100.9").statusCode(),
                    "a hop written left of the proxy's is never reached");
            assertEquals(401, post(face, BAD, null, "not-an-address").statusCode(), "malformed: the proxy's own window");
            for (int i = 1; i < LIMIT; i++) {
                assertEquals(401, post(face, BAD, null).statusCode(), "no header: the proxy's own window");
            }
            assertEquals(429, post(face, GOOD, null, "203.0.113.1:999").statusCode(),
                    "a hop with a port is malformed and shares the (now throttled) proxy window");
            assertEquals(200, post(face, GOOD, null, "[2001:db8::1]").statusCode(), "an IPv6 hop has its own window");
        }
        assertTrue(ClientAddress.literal("999.1.1.1").isEmpty(), "an out-of-range octet is no address (and no lookup)");
        assertTrue(ClientAddress.literal("example.org").isEmpty(), "names are never resolved");
    }
}
