package ai.cotal.auth.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.Grant;
import ai.cotal.auth.Granter;
import ai.cotal.auth.IdpPin;
import ai.cotal.auth.PlaneFixture;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
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

    /** The stored row at {@code key} in the auth bucket, as text (the unrestricted test admin). */
    private static String row(io.nats.client.Connection admin, String key) throws Exception {
        io.nats.client.api.KeyValueEntry entry = admin.keyValue("cotal_auth_alpha").get(key);
        return entry == null ? null : new String(entry.getValue(), java.nio.charset.StandardCharsets.UTF_8);
    }

    @Test
    void theRouteDerivesTheGranterOwnersActOnEitherFaceAndTheOperatorIsAudited(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (TestIdp idp = new TestIdp();
             AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).serviceEndpoints(true).build());
             io.nats.client.Connection admin = f.admin(nats)) {
            IdpPin pin = IdpPin.pin(stateDir, idp.url());
            Owner owner = plane.deriveOwner(pin.issuer(), "alice");
            plane.ledger().grantActor(Principal.of(owner.value(), "laptop"), Grant.of(List.of(), List.of(), List.of()));
            plane.ledger().grantActor(Principal.of(plane.deriveOwner(pin.issuer(), "ops@example.test").value(), "desk"),
                    Grant.of(List.of(), List.of(), List.of()));
            try (TokenExchange exchange = TokenExchange.start(ExchangeOptions.builder().plane(plane).stateDir(stateDir)
                    .publicAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build())) {
                String token = idp.token("alice", 300);
                String ops = idp.token("ops@example.test", 300); // a proved subject with no instance of its own
                ServiceEndpointHostClient publicFace = new ServiceEndpointHostClient(URI.create(exchange.publicUrl()
                        .orElseThrow()), http, Duration.ofSeconds(10));
                ServiceEndpointHostClient loopback = new ServiceEndpointHostClient(URI.create(exchange.loopbackUrl()), http,
                        Duration.ofSeconds(10));
                String cap = capability();
                String endpoint = "com.example.weather";
                String other = "z".repeat(26);

                String rid = ServiceEndpointHostClient.newRequestId();
                HostResult pending = publicFace.invoke(token, new HostRequest.Register(rid, endpoint, IID,
                        "sha256:" + "c".repeat(64), List.of("ask")));
                assertEquals(Status.PENDING, pending.status(), pending.reason());
                assertEquals(rid, pending.requestId(), "the result echoes its request");
                assertEquals(owner.value(), pending.proposal().owner(), "the route derived the owner from the IdP proof");
                assertTrue(row(admin, "svc.req." + rid).contains("\"granter\":\"owner:" + owner + "\""));
                assertEquals(Status.COMPLETED, publicFace.invoke(token, new HostRequest.Decide(rid(), endpoint, IID,
                        HostRequest.Decision.APPROVE)).status());
                loopback.invoke(token, new HostRequest.Register(rid(), endpoint, other, "sha256:" + "c".repeat(64),
                        List.of("ask")), cap);
                assertEquals(Status.COMPLETED, loopback.invoke(token, new HostRequest.Decide(rid(), endpoint, other,
                        HostRequest.Decision.APPROVE), cap).status(), "a decision on loopback runs as the owner");

                HostRequest.NameBind bind = new HostRequest.NameBind(rid(), "com.example.forecast", endpoint, owner.value(),
                        "dns:x", 0);
                assertEquals(Status.DENIED, publicFace.invoke(token, bind).status(),
                        "on the public face the proved owner cannot bind names");
                HostResult bound = loopback.invoke(ops, bind, cap);
                assertEquals(Status.COMPLETED, bound.status(), "on loopback with the capability it runs as the operator");
                String audited = "\"auditId\":\"ops@example.test\"";
                for (String key : List.of("svc.req." + bind.requestId(), "svc.op." + bound.operationId(),
                        "svc.name.com_example_forecast")) {
                    assertTrue(row(admin, key).contains(audited), key + " carries the operator's audit id: "
                            + row(admin, key));
                }
                // the route reads as the proved owner: a name-bind operation is read in process, as the operator
                assertEquals("ops@example.test", plane.serviceEndpoints().orElseThrow().serve(new Granter.Operator("audit"),
                        new HostRequest.OperationRead(bound.operationId())).operation().auditId(),
                        "operation-read shows the audit id");

                HostResult ownRevoke = publicFace.invoke(token, new HostRequest.Revoke(rid(), endpoint, IID));
                assertEquals(Status.COMPLETED, ownRevoke.status(), "an owner revokes its own instance on the public face");
                assertNotNull(ownRevoke.denyNew());
                assertNull(publicFace.invoke(token, new HostRequest.OperationRead(ownRevoke.operationId())).operation()
                        .auditId(), "the owner's revoke is no operator's");
                assertEquals(Status.DENIED, publicFace.invoke(ops, new HostRequest.Revoke(rid(), endpoint, other)).status(),
                        "on the public face another owner cannot revoke it");
                HostRequest.Revoke mine = new HostRequest.Revoke(rid(), endpoint, other);
                HostResult loopbackOwn = loopback.invoke(token, mine, cap);
                assertEquals(Status.COMPLETED, loopbackOwn.status());
                assertTrue(row(admin, "svc.req." + mine.requestId()).contains("\"granter\":\"owner:" + owner + "\""),
                        "on loopback too, an owner's revoke of its own instance runs as the owner");
                assertEquals(loopbackOwn.operationId(), loopback.invoke(token, mine, cap).operationId(),
                        "and its replay resolves to the same granter");

                String third = "y".repeat(26);
                publicFace.invoke(token, new HostRequest.Register(rid(), endpoint, third, "sha256:" + "c".repeat(64),
                        List.of("ask")));
                publicFace.invoke(token, new HostRequest.Decide(rid(), endpoint, third, HostRequest.Decision.APPROVE));
                HostResult operatorRevoke = loopback.invoke(ops, new HostRequest.Revoke(rid(), endpoint, third), cap);
                assertEquals(Status.COMPLETED, operatorRevoke.status(), "any other revoke on loopback is the operator's");
                assertEquals("ops@example.test", publicFace.invoke(token, new HostRequest.OperationRead(
                        operatorRevoke.operationId())).operation().auditId(), "the owner reads who revoked its instance");
                assertTrue(row(admin, "svc.asg." + owner + ".com_example_weather." + third).contains(audited),
                        "the fenced assignment names the operator");
                assertTrue(row(admin, "epgate.com_example_weather." + third).contains(audited),
                        "the retired gate names the operator");

                ContractException unproved = assertThrows(ContractException.class, () -> publicFace.invoke(
                        idp.token("alice", "https://other.example", idp.url(), 300),
                        new HostRequest.InstanceRead(endpoint, IID)));
                assertEquals("unauthenticated", unproved.code());
                HostResult rowless = publicFace.invoke(idp.token("carol", 300), new HostRequest.Register(rid(), endpoint,
                        "x".repeat(26), "sha256:" + "c".repeat(64), List.of("ask")));
                assertEquals(Status.HELD, rowless.status(), "an owner without a current interactive row");
                assertEquals("granter", rowless.reason());
            }
        }
    }

    @Test
    void aBodyNamingAGranterOrAnActorIsRefusedNamingTheField(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (TestIdp idp = new TestIdp();
             AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).serviceEndpoints(true).build());
             TokenExchange exchange = TokenExchange.start(ExchangeOptions.builder().plane(plane).stateDir(stateDir).build())) {
            IdpPin.pin(stateDir, idp.url());
            String cap = capability();
            String request = "\"request\":{\"kind\":\"name-read\",\"name\":\"forecast\"}";
            String token = "\"idpToken\":\"" + idp.token("alice", 300) + "\"";
            assertEquals(200, post(exchange.loopbackUrl(), ServiceEndpointHostClient.HOST_ROUTE, "{" + token + ","
                    + request + "}", cap, "application/json", "POST", false).statusCode());
            for (String field : List.of("actor", "granter", "owner", "auditId")) {
                HttpResponse<String> refused = post(exchange.loopbackUrl(), ServiceEndpointHostClient.HOST_ROUTE, "{"
                        + token + ",\"" + field + "\":\"operator\"," + request + "}", cap, "application/json", "POST",
                        false);
                assertEquals(400, refused.statusCode(), field);
                assertTrue(refused.body().contains(field + ": not accepted: the route derives the granter"),
                        refused.body());
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
            String good = "{\"idpToken\":\"" + idp.token("alice", 300) + "\",\"request\":"
                    + "{\"kind\":\"name-read\",\"name\":\"forecast\"}}";
            assertEquals(200, post(url, route, good, cap, "application/json", "POST", false).statusCode());
            assertEquals(405, post(url, route, good, cap, "application/json", "PUT", false).statusCode());
            assertEquals(403, post(url, route, good, cap, "application/json", "POST", true).statusCode());
            assertEquals(415, post(url, route, good, cap, "text/plain", "POST", false).statusCode());
            assertEquals(401, post(url, route, good, null, "application/json", "POST", false).statusCode());
            assertEquals(401, post(url, route, good, "wrong", "application/json", "POST", false).statusCode());
            assertEquals(413, post(url, route, "{\"idpToken\":\"" + "x".repeat(70_000) + "\"}", cap, "application/json",
                    "POST", false).statusCode());
            for (String bad : List.of("{", "null", "[]", "{\"request\":{\"kind\":\"name-read\","
                    + "\"name\":\"n\"}}", "{\"idpToken\":\"t\",\"request\":\"name-read\"}",
                    "{\"idpToken\":\"t\",\"granter\":\"operator\",\"request\":{}}")) {
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
            Owner owner = plane.deriveOwner(pin.issuer(), "alice");
            plane.ledger().grantActor(Principal.of(owner.value(), "laptop"), Grant.of(List.of(), List.of(), List.of()));
            try (TokenExchange exchange = TokenExchange.start(ExchangeOptions.builder().plane(plane).stateDir(stateDir)
                    .publicAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build())) {
                String url = exchange.publicUrl().orElseThrow();
                String token = idp.token("alice", 300);
                java.util.function.BiFunction<String, String, String> register = (id, iid) -> "{\"idpToken\":\"" + token
                        + "\",\"request\":{\"kind\":\"register\",\"requestId\":\"" + id
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
