package ai.cotal.auth.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ActorTokens;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.Grant;
import ai.cotal.auth.IdpPin;
import ai.cotal.auth.SpaceProvisioning;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.workspace.SecretKeys;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The exchange faces' route matrix against an open plane on the real broker. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class TokenExchangeBrokerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Clock clock = Clock.systemUTC();
    private final SpaceAuth auth = SpaceAuth.create("alpha", clock);
    private final InMemorySecretStore store = new InMemorySecretStore();
    private final HttpClient http = HttpClient.newHttpClient();
    private TestIdp idp;
    private AuthAuthorityPlane plane;
    private String owner;

    @TempDir
    Path stateDir;

    @BeforeEach
    void open(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> ServerConfig.render(auth.broker(), List.of(auth.account()),
                ServerConfigOptions.builder().transport(Transport.plaintext()).storeDir(b.storeDir()).build()));
        SpaceProvisioning.forSpace(auth, ai.cotal.core.trust.CalloutAuth.create("alpha", auth.broker(),
                auth.account().accountPublicKey(), clock)).write(store);
        // the throttle tests make 100 successful exchanges of one agent: above the default mint budget
        // (SPEC §13.20, tested in WriteBudgetBrokerTest), so this plane's budget is raised
        plane = AuthAuthorityPlane.open(AuthPlaneOptions.builder().server(nats.url()).space("alpha").stateDir(stateDir)
                .secretStore(store).signer(auth.strip()).mintsPerPrincipalPerMinute(1_000).build());
        idp = new TestIdp();
        IdpPin pin = IdpPin.pin(stateDir, idp.url());
        owner = plane.deriveOwner(pin.issuer(), "alice").value();
        plane.ledger().grantActor(Principal.of(owner, "laptop"), Grant.of(List.of("chat"), List.of(), List.of()));
        plane.ledger().grantManagedActor(Principal.of("u_abcdefghijklmnopqrstuvwxyz", "agent1"), Grant.of(List.of(), List.of(),
                List.of()), ActorTokens.tokenHash("agent-secret"), new LifecycleUid("abcdefghijklmnopqrstuvwxyz"));
    }

    @AfterEach
    void close() {
        idp.close();
        plane.close();
    }

    private TokenExchange start(ExchangeOptions.Builder options) {
        return TokenExchange.start(options.plane(plane).stateDir(stateDir).build());
    }

    private String capability() throws Exception {
        return JSON.readTree(Files.readString(stateDir.resolve(TokenExchange.DISCOVERY_FILE))).path("capability").asText();
    }

    private HttpResponse<String> post(String url, String body, String capability, String type) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url + "/exchange"))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (type != null) {
            request.header("Content-Type", type);
        }
        if (capability != null) {
            request.header("Authorization", "Bearer " + capability);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> loopback(TokenExchange exchange, String body) throws Exception {
        return post(exchange.loopbackUrl(), body, capability(), "application/json");
    }

    private static JsonNode json(HttpResponse<String> response) throws Exception {
        return JSON.readTree(response.body());
    }

    @Test
    void humanAndAgentArmsIssueBearersThePlaneAccepts() throws Exception {
        try (TokenExchange exchange = start(ExchangeOptions.builder())) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(
                    stateDir.resolve(TokenExchange.DISCOVERY_FILE))));
            HttpResponse<String> human = loopback(exchange, "{\"idpToken\":\"" + idp.token("alice", 600)
                    + "\",\"actor\":\"laptop\",\"ttlSec\":120}");
            assertEquals(200, human.statusCode(), human.body());
            assertEquals(owner, json(human).path("owner").asText());
            var claims = plane.bearers().verify(json(human).path("token").asText());
            assertEquals("laptop", claims.actor().value());
            assertTrue(claims.expiresAt() - claims.issuedAt() <= 120);
            plane.credentials().authorize(claims.attempt());

            HttpResponse<String> agent = loopback(exchange, "{\"owner\":\"u_abcdefghijklmnopqrstuvwxyz\",\"actor\":\"agent1\","
                    + "\"actorToken\":\"agent-secret\",\"ttlSec\":3600}");
            assertEquals(200, agent.statusCode(), agent.body());
            var agentClaims = plane.bearers().verify(json(agent).path("token").asText());
            assertEquals(300, agentClaims.expiresAt() - agentClaims.issuedAt(), "agent bearers live at most 300 s");
            HttpResponse<String> managedCaller = loopback(exchange, "{\"owner\":\"u_abcdefghijklmnopqrstuvwxyz\","
                    + "\"actor\":\"agent1\",\"actorToken\":\"agent-secret\",\"view\":\"manager-caller\"}");
            assertEquals(200, managedCaller.statusCode(), managedCaller.body());
            assertEquals(java.util.Optional.of("manager-caller"), plane.bearers().verify(json(managedCaller).path("token")
                    .asText()).view(), "the agent arm issues the manager-caller view (SPEC §13.17, §14.4)");

            String wrong = json(loopback(exchange, "{\"owner\":\"u_abcdefghijklmnopqrstuvwxyz\",\"actor\":\"agent1\","
                    + "\"actorToken\":\"nope\"}")).path("error").asText();
            String unknown = json(loopback(exchange, "{\"owner\":\"u_abcdefghijklmnopqrstuvwxyz\",\"actor\":\"ghost\","
                    + "\"actorToken\":\"agent-secret\"}")).path("error").asText();
            assertEquals(wrong, unknown, "every agent failure reads the same");
            assertEquals(ExchangeArms.AGENT_REFUSAL, wrong);

            HttpResponse<String> foreignAudience = loopback(exchange, "{\"idpToken\":\"" + idp.token("alice", idp.url(),
                    "https://elsewhere.example", 600) + "\",\"actor\":\"laptop\"}");
            assertEquals(401, foreignAudience.statusCode());
            assertTrue(json(foreignAudience).path("error").asText().contains("aud"), foreignAudience.body());
        }
    }

    @Test
    void theRouteMatrix() throws Exception {
        try (TokenExchange exchange = start(ExchangeOptions.builder())) {
            String url = exchange.loopbackUrl();
            HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create(url + "/health")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, health.statusCode());
            assertTrue(health.body().contains("urn:cotal:auth:alpha"));
            HttpResponse<String> jwks = http.send(HttpRequest.newBuilder(URI.create(url + "/jwks")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals("max-age=300", jwks.headers().firstValue("Cache-Control").orElse(""));
            assertFalse(jwks.headers().map().keySet().stream().anyMatch(h -> h.toLowerCase().startsWith("access-control")),
                    "no CORS headers");
            assertEquals(404, http.send(HttpRequest.newBuilder(URI.create(url + "/exchange/")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode());
            assertEquals(405, http.send(HttpRequest.newBuilder(URI.create(url + "/exchange")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode());
            assertEquals(403, http.send(HttpRequest.newBuilder(URI.create(url + "/exchange")).header("Origin", "https://evil")
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode());
            assertEquals(415, post(url, "{}", capability(), "text/plain").statusCode());
            assertEquals(401, post(url, "{}", null, "application/json").statusCode());
            assertEquals(401, post(url, "{}", "wrong", "application/json").statusCode());
            assertEquals(413, post(url, "{\"x\":\"" + "a".repeat(TokenExchange.MAX_BODY) + "\"}", capability(),
                    "application/json").statusCode());
            assertEquals(400, post(url, "{not json", capability(), "application/json").statusCode());
            assertEquals(400, post(url, "{\"idpToken\":\"a\",\"actorToken\":\"b\"}", capability(), "application/json")
                    .statusCode());
            assertEquals(400, post(url, "{\"idpToken\":\"a\",\"surprise\":1}", capability(), "application/json").statusCode());
            assertEquals(400, post(url, "{\"idpToken\":\"a\",\"ttlSec\":-5}", capability(), "application/json").statusCode());
        }
    }

    @Test
    void theLoopbackFaceProvesItHoldsTheCapabilityAndThePublicFaceNever() throws Exception {
        try (TokenExchange exchange = start(ExchangeOptions.builder().publicAddress(
                new java.net.InetSocketAddress("127.0.0.1", 0)))) {
            String challenge = HealthProof.newChallenge();
            JsonNode loopback = json(http.send(HttpRequest.newBuilder(URI.create(exchange.loopbackUrl() + "/health"))
                    .header(HealthProof.CHALLENGE_HEADER, challenge).build(), HttpResponse.BodyHandlers.ofString()));
            assertTrue(HealthProof.verifies(capability(), challenge, loopback.path("proof").asText(null)), loopback.toString());
            assertFalse(HealthProof.verifies("another-capability", challenge, loopback.path("proof").asText(null)));
            assertFalse(HealthProof.verifies(capability(), HealthProof.newChallenge(), loopback.path("proof").asText(null)),
                    "a proof answers its own challenge only");
            assertFalse(loopback.path("proof").asText("").contains(capability()), "the proof does not carry the capability");
            JsonNode malformed = json(http.send(HttpRequest.newBuilder(URI.create(exchange.loopbackUrl() + "/health"))
                    .header(HealthProof.CHALLENGE_HEADER, "short").build(), HttpResponse.BodyHandlers.ofString()));
            assertTrue(malformed.path("proof").isMissingNode(), malformed.toString());
            JsonNode open = json(http.send(HttpRequest.newBuilder(URI.create(exchange.publicUrl().orElseThrow() + "/health"))
                    .header(HealthProof.CHALLENGE_HEADER, challenge).build(), HttpResponse.BodyHandlers.ofString()));
            assertEquals("urn:cotal:auth:alpha", open.path("issuer").asText());
            assertTrue(open.path("proof").isMissingNode(), "the public face never answers a proof: " + open);
        }
    }

    @Test
    void refusalsAreThrottledAndSuccessesNeverCount() throws Exception {
        String good = "{\"owner\":\"u_abcdefghijklmnopqrstuvwxyz\",\"actor\":\"agent1\",\"actorToken\":\"agent-secret\"}";
        try (TokenExchange exchange = start(ExchangeOptions.builder())) {
            for (int i = 0; i < 100; i++) {
                assertEquals(200, loopback(exchange, good).statusCode(), "successes are never counted");
            }
            String bad = "{\"owner\":\"u_abcdefghijklmnopqrstuvwxyz\",\"actor\":\"agent1\",\"actorToken\":\"nope\"}";
            for (int i = 0; i < 30; i++) {
                assertEquals(401, loopback(exchange, bad).statusCode());
            }
            assertEquals(429, loopback(exchange, bad).statusCode());
        }
        try (TokenExchange exchange = start(ExchangeOptions.builder())) {
            for (int i = 0; i < 30; i++) {
                assertEquals(401, post(exchange.loopbackUrl(), good, "wrong", "application/json").statusCode());
            }
            assertEquals(429, post(exchange.loopbackUrl(), good, "wrong", "application/json").statusCode());
        }
    }

    @Test
    void thePublicFaceIsBoundedInFlightAndInTime() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch entered = new CountDownLatch(1);
        HttpJwksSource real = new HttpJwksSource(clock);
        JwksSource slow = uri -> {
            entered.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return real.keys(uri);
        };
        InetSocketAddress anyPort = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        try (TokenExchange exchange = start(ExchangeOptions.builder().publicAddress(anyPort).jwks(slow)
                .limits(FaceLimits.DEFAULT.withMaxInFlight(1).withDeadline(Duration.ofSeconds(5))))) {
            String url = exchange.publicUrl().orElseThrow();
            String body = "{\"idpToken\":\"" + idp.token("alice", 600) + "\",\"actor\":\"laptop\"}";
            CompletableFuture<HttpResponse<String>> first = http.sendAsync(HttpRequest.newBuilder(URI.create(url + "/exchange"))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertTrue(entered.await(10, TimeUnit.SECONDS));
            HttpResponse<String> busy = post(url, body, null, "application/json");
            assertEquals(503, busy.statusCode());
            assertTrue(busy.body().contains("busy"), busy.body());
            release.countDown();
            assertEquals(200, first.get(10, TimeUnit.SECONDS).statusCode(), "the public face needs no capability");
        }
        CountDownLatch never = new CountDownLatch(1);
        JwksSource stuck = uri -> {
            try {
                never.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new ai.cotal.core.CotalException(ai.cotal.core.ErrorCode.UNAVAILABLE, "interrupted");
        };
        try (TokenExchange exchange = start(ExchangeOptions.builder().publicAddress(anyPort).jwks(stuck)
                .limits(FaceLimits.DEFAULT.withDeadline(Duration.ofMillis(300))))) {
            HttpResponse<String> late = post(exchange.publicUrl().orElseThrow(), "{\"idpToken\":\"" + idp.token("alice", 600)
                    + "\",\"actor\":\"laptop\"}", null, "application/json");
            assertEquals(503, late.statusCode());
            assertTrue(late.body().contains("deadline"), late.body());
        }
    }

    @Test
    void closeWithdrawsTheCapabilityFileOnlyWhileItIsThisExchanges() throws Exception {
        Path file = stateDir.resolve(TokenExchange.DISCOVERY_FILE);
        Files.writeString(file, "{\"ver\":1,\"url\":\"http://127.0.0.1:1\",\"capability\":\"stale\"}");
        TokenExchange first = start(ExchangeOptions.builder());
        String mine = capability();
        assertFalse(mine.equals("stale"), "start replaced the stale file");
        first.close();
        assertFalse(Files.exists(file), "close withdrew this exchange's file");
        assertFalse(first.withdrawDiscovery(), "withdrawing again finds nothing");

        try (TokenExchange older = start(ExchangeOptions.builder()); TokenExchange newer = start(ExchangeOptions.builder())) {
            String current = capability();
            assertFalse(older.withdrawDiscovery(), "the file holds the newer exchange's capability");
            assertEquals(current, capability(), "and is left alone");
            older.close();
            assertTrue(Files.exists(file), "closing the older exchange keeps the newer one's file");
            assertTrue(newer.withdrawDiscovery());
        }
        assertFalse(Files.exists(file));
    }

    @Test
    void aClientStillSendingAnOversizedBodyGetsItsAnswerNotAReset() throws Exception {
        // the per-peer cap is raised: each refused connection may linger up to a second, and this
        // client opens a new one per request faster than that (the cap has its own tests)
        try (TokenExchange exchange = start(ExchangeOptions.builder().limits(FaceLimits.DEFAULT.withConnections(1000, 1000)))) {
            String big = "{\"x\":\"" + "a".repeat(TokenExchange.MAX_BODY) + "\"}";
            for (int i = 0; i < 100; i++) {
                assertEquals(413, post(exchange.loopbackUrl(), big, capability(), "application/json").statusCode(),
                        "request " + i + ": the 413 arrives although the client was still sending");
            }
        }
    }

    @Test
    void aRelativeStateDirIsRefusedNamingTheFieldAndNotThePath() {
        ai.cotal.core.CotalException e = org.junit.jupiter.api.Assertions.assertThrows(ai.cotal.core.CotalException.class,
                () -> ExchangeOptions.builder().plane(plane).stateDir(Path.of("relative-state")).build());
        assertEquals(ai.cotal.core.ErrorCode.BAD_REQUEST, e.code());
        assertEquals("stateDir: must be an absolute path (state never lands in the working directory)", e.getMessage());
        assertFalse(Files.exists(Path.of("relative-state")), "nothing was written in the working directory");
    }

    /** The bounds' own refusals are FaceLimitsTest's; the options refuse none at all. */
    @Test
    void theOptionsRefuseNoLimitsNamingTheField() {
        ai.cotal.core.CotalException e = org.junit.jupiter.api.Assertions.assertThrows(ai.cotal.core.CotalException.class,
                () -> ExchangeOptions.builder().plane(plane).stateDir(stateDir).limits(null).build());
        assertEquals(ai.cotal.core.ErrorCode.BAD_REQUEST, e.code());
        assertTrue(e.getMessage().startsWith("limits"), e.getMessage());
        assertEquals(FaceLimits.DEFAULT, ExchangeOptions.builder().plane(plane).stateDir(stateDir).build().limits(),
                "the defaults unless set");
    }
}
