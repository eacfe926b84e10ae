package ai.cotal.auth.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ActorLedger;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.IdpPin;
import ai.cotal.auth.PlaneFixture;
import ai.cotal.servicehost.ContractException;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.servicehost.HostResult.Status;
import ai.cotal.servicehost.ServiceEndpointHostClient;
import ai.cotal.servicehost.Views;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The service-endpoint routes on the exchange faces: owner and operator faces, the door, a lane without endpoints. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class HostRouteBrokerTest {
    private static final String IID = "abcdefghijklmnopqrstuvwxyz";
    private final PlaneFixture f = new PlaneFixture();
    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path stateDir;

    private static String rid() {
        return "req-" + Long.toHexString(System.nanoTime()) + "-route";
    }

    private String capability() throws Exception {
        return new ObjectMapper().readTree(Files.readString(stateDir.resolve(TokenExchange.DISCOVERY_FILE)))
                .path("capability").asText();
    }

    private HttpResponse<String> post(String url, String route, String body, String capability, String type,
            String method, boolean origin) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url + route))
                .method(method, HttpRequest.BodyPublishers.ofString(body));
        if (type != null) {
            request.header("Content-Type", type);
        }
        if (capability != null) {
            request.header("Authorization", "Bearer " + capability);
        }
        if (origin) {
            request.header("Origin", "https://evil.example");
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void ownersUseEitherFaceAndTheOperatorOnlyTheLoopbackFace(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (TestIdp idp = new TestIdp();
             AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).serviceEndpoints(true).build())) {
            IdpPin pin = IdpPin.pin(stateDir, idp.url());
            String owner = plane.deriveOwner(pin.issuer(), "alice");
            plane.ledger().grantActor(owner, "laptop", ActorLedger.Grant.of(List.of(), List.of(), List.of()));
            try (TokenExchange exchange = TokenExchange.start(ExchangeOptions.builder().plane(plane).stateDir(stateDir)
                    .publicAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build())) {
                String token = idp.token("alice", 300);
                ServiceEndpointHostClient publicFace = new ServiceEndpointHostClient(URI.create(exchange.publicUrl()
                        .orElseThrow()), http, Duration.ofSeconds(10));
                ServiceEndpointHostClient loopback = new ServiceEndpointHostClient(URI.create(exchange.loopbackUrl()), http,
                        Duration.ofSeconds(10));
                String cap = capability();

                HostResult pending = publicFace.invoke(token, "laptop", new HostRequest.Register(rid(), "weather", IID,
                        "sha256:" + "c".repeat(64), List.of("ask")), null);
                assertEquals(Status.PENDING, pending.status());
                assertEquals(owner, pending.proposal().owner(), "the route derived the owner from the IdP proof");
                HostResult approved = publicFace.invoke(token, "laptop", new HostRequest.Decide(rid(), "weather", IID,
                        HostRequest.Decision.APPROVE), null);
                assertEquals(Status.COMPLETED, approved.status());

                HostRequest.NameBind bind = new HostRequest.NameBind(rid(), "forecast", "weather", owner, "dns:x", 0);
                assertEquals(Status.DENIED, publicFace.invoke(token, "laptop", bind, null).status(),
                        "on the public face the proved owner cannot bind names");
                HostResult bound = loopback.invoke(token, "laptop", bind, cap);
                assertEquals(Status.COMPLETED, bound.status(), "on loopback with the capability it runs as the operator");
                HttpResponse<String> viaHost = post(exchange.loopbackUrl(), ServiceEndpointHostClient.HOST_ROUTE,
                        "{\"idpToken\":\"" + token + "\",\"actor\":\"laptop\",\"request\":{\"kind\":\"register\","
                        + "\"requestId\":\"" + rid() + "\",\"endpoint\":\"tides\",\"instanceId\":\"" + IID
                        + "\",\"contractDigest\":\"sha256:" + "c".repeat(64) + "\",\"callerCeiling\":[]}}", cap,
                        "application/json", "POST", false);
                assertEquals(200, viaHost.statusCode(), viaHost.body());
                assertTrue(viaHost.body().contains("\"unsupported\""), "register through the host route: " + viaHost.body());
                assertEquals(Views.RegistrationState.APPROVED, loopback.invoke(token, "laptop", new HostRequest.InstanceRead("weather", IID), cap)
                        .instance().registrationState());

                ContractException unproved = assertThrows(ContractException.class, () -> publicFace.invoke(
                        idp.token("alice", "https://other.example", idp.url(), 300), "laptop",
                        new HostRequest.InstanceRead("weather", IID), null));
                assertEquals("unauthenticated", unproved.code());
                HostResult held = publicFace.invoke(token, "phone", new HostRequest.Revoke(rid(), "weather", IID), null);
                assertEquals(Status.HELD, held.status(), "an actor without an interactive row");
                HostResult revoked = publicFace.invoke(token, "laptop", new HostRequest.Revoke(rid(), "weather", IID), null);
                assertEquals(Status.COMPLETED, revoked.status());
                assertNotNull(revoked.denyNew());
            }
        }
    }

    @Test
    void theDoorRefusesBeforeAnyWorkAndALaneWithoutEndpointsIsNotFound(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (TestIdp idp = new TestIdp();
             AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).serviceEndpoints(true).build());
             TokenExchange exchange = TokenExchange.start(ExchangeOptions.builder().plane(plane).stateDir(stateDir).build())) {
            IdpPin.pin(stateDir, idp.url());
            String url = exchange.loopbackUrl();
            String route = ServiceEndpointHostClient.HOST_ROUTE;
            String cap = capability();
            String good = "{\"idpToken\":\"" + idp.token("alice", 300) + "\",\"actor\":\"laptop\",\"request\":"
                    + "{\"kind\":\"name-read\",\"name\":\"forecast\"}}";
            assertEquals(200, post(url, route, good, cap, "application/json", "POST", false).statusCode());
            assertEquals(405, post(url, route, good, cap, "application/json", "PUT", false).statusCode());
            assertEquals(403, post(url, route, good, cap, "application/json", "POST", true).statusCode());
            assertEquals(415, post(url, route, good, cap, "text/plain", "POST", false).statusCode());
            assertEquals(401, post(url, route, good, null, "application/json", "POST", false).statusCode());
            assertEquals(401, post(url, route, good, "wrong", "application/json", "POST", false).statusCode());
            assertEquals(413, post(url, route, "{\"idpToken\":\"" + "x".repeat(70_000) + "\"}", cap, "application/json",
                    "POST", false).statusCode());
            for (String bad : List.of("{", "null", "[]", "{\"actor\":\"laptop\",\"request\":{\"kind\":\"name-read\","
                    + "\"name\":\"n\"}}", "{\"idpToken\":\"t\",\"actor\":\"laptop\",\"request\":\"name-read\"}",
                    "{\"idpToken\":\"t\",\"actor\":\"laptop\",\"granter\":\"operator\",\"request\":{}}")) {
                HttpResponse<String> response = post(url, route, bad, cap, "application/json", "POST", false);
                assertEquals(400, response.statusCode(), bad + " -> " + response.body());
            }
            HttpResponse<String> hostileName = post(url, route, "{\"idpToken\":\"t\",\"x\\nFORGED LOG LINE\":1}", cap,
                    "application/json", "POST", false);
            assertEquals(400, hostileName.statusCode());
            assertTrue(hostileName.body().contains("<name not shown>: unknown field"), hostileName.body());
            assertFalse(hostileName.body().contains("FORGED"), "a hostile field name is never echoed: " + hostileName.body());
            HttpResponse<String> badProof = post(url, route, good.replace(good.substring(14, 30), "AAAAAAAAAAAAAAAA"), cap,
                    "application/json", "POST", false);
            assertEquals(401, badProof.statusCode(), badProof.body());
        }
        Path other = stateDir.resolve("lane-without-endpoints");
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, other).build());
             TokenExchange exchange = TokenExchange.start(ExchangeOptions.builder().plane(plane).stateDir(other).build())) {
            String otherCap = new ObjectMapper().readTree(Files.readString(other.resolve(TokenExchange.DISCOVERY_FILE)))
                    .path("capability").asText();
            HttpResponse<String> response = post(exchange.loopbackUrl(), ServiceEndpointHostClient.HOST_ROUTE, "{}",
                    otherCap, "application/json", "POST", false);
            assertEquals(404, response.statusCode());
            assertTrue(response.body().contains("no service endpoints"), response.body());
        }
    }

    @Test
    void anOwnerOverItsServiceEndpointBudgetIsAnswered429OnThePublicFace(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (TestIdp idp = new TestIdp();
             AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).serviceEndpoints(true)
                     .endpointWritesPerPrincipalPerMinute(1).build())) {
            IdpPin pin = IdpPin.pin(stateDir, idp.url());
            String owner = plane.deriveOwner(pin.issuer(), "alice");
            plane.ledger().grantActor(owner, "laptop", ActorLedger.Grant.of(List.of(), List.of(), List.of()));
            try (TokenExchange exchange = TokenExchange.start(ExchangeOptions.builder().plane(plane).stateDir(stateDir)
                    .publicAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build())) {
                String url = exchange.publicUrl().orElseThrow();
                String token = idp.token("alice", 300);
                java.util.function.BiFunction<String, String, String> register = (id, iid) -> "{\"idpToken\":\"" + token
                        + "\",\"actor\":\"laptop\",\"request\":{\"kind\":\"register\",\"requestId\":\"" + id
                        + "\",\"endpoint\":\"weather\",\"instanceId\":\"" + iid + "\",\"contractDigest\":\"sha256:"
                        + "c".repeat(64) + "\",\"callerCeiling\":[]}}";
                String first = rid();
                HttpResponse<String> admitted = post(url, ServiceEndpointHostClient.AUTHORITY_ROUTE,
                        register.apply(first, IID), null, "application/json", "POST", false);
                assertEquals(200, admitted.statusCode(), admitted.body());
                assertTrue(admitted.body().contains("\"pending\""), admitted.body());
                HttpResponse<String> refused = post(url, ServiceEndpointHostClient.AUTHORITY_ROUTE,
                        register.apply(rid(), "z".repeat(26)), null, "application/json", "POST", false);
                assertEquals(429, refused.statusCode(), refused.body());
                assertTrue(refused.body().contains("service-endpoint budget: this principal made 1 new service-endpoint"
                        + " requests in the last minute (limit 1 per principal per minute)"), refused.body());
                HttpResponse<String> replay = post(url, ServiceEndpointHostClient.AUTHORITY_ROUTE,
                        register.apply(first, IID), null, "application/json", "POST", false);
                assertEquals(200, replay.statusCode(), "a replay of the admitted request id still answers: " + replay.body());
            }
        }
    }
}
