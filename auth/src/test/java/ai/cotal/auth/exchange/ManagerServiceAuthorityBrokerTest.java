package ai.cotal.auth.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.Grant;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.PlaneFixture;
import ai.cotal.auth.TestManager;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.Principal;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The manager service authority (SPEC §14.6) and the exchange's session field rules (SPEC §13.17)
 * through the stock routes: the issued standing credential serves exactly the registered surface
 * (the broker refuses another command), a body cannot select a surface, a renewal after the gate
 * froze is refused, and verify-enrollment is the loopback face's.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class ManagerServiceAuthorityBrokerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";
    private static final String IID = "mgr0000000000000000000000001";
    private final PlaneFixture f = new PlaneFixture();
    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path stateDir;

    private HttpResponse<String> post(String url, String route, String body, String capability) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url + route)).header("Content-Type",
                "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (capability != null) {
            request.header("Authorization", "Bearer " + capability);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private String capability() throws Exception {
        return JSON.readTree(Files.readString(stateDir.resolve(TokenExchange.DISCOVERY_FILE))).path("capability").asText();
    }

    private static String bearer(AuthAuthorityPlane plane, ActorRow row) {
        CredentialId credential = plane.credentials().mint(row.principal(), row.lifecycleUid()).id();
        return plane.bearers().issue(BearerRequest.member(row.principal(), row.scope(), row.lifecycleUid(),
                credential, Duration.ofMinutes(5)));
    }

    private static String issueBody(String bearer, String userKey, String extra) {
        return "{\"bearer\":\"" + bearer + "\",\"instanceId\":\"" + IID + "\",\"userPublicKey\":\"" + userKey + "\"" + extra
                + "}";
    }

    private static JsonNode json(HttpResponse<String> response) throws Exception {
        return JSON.readTree(response.body());
    }

    @Test
    void theStandingCredentialServesExactlyTheRegisteredSurfaceUntilTheGateFreezes(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
             TokenExchange exchange = TokenExchange.start(ExchangeOptions.builder().plane(plane).stateDir(stateDir)
                     .publicAddress(new InetSocketAddress("127.0.0.1", 0)).build())) {
            ActorRow mgr = plane.ledger().grantActor(Principal.of(OWNER, "mgr"), Grant.of(List.of("chat"), List.of(),
                    List.of()));
            String publicUrl = exchange.publicUrl().orElseThrow();
            String loopback = exchange.loopbackUrl();
            Identity identity = Identity.create();
            String token = bearer(plane, mgr);

            HttpResponse<String> noGate = post(publicUrl, ManagerAuthorityRoute.ISSUE, issueBody(token, identity.id(), ""),
                    null);
            assertEquals(409, noGate.statusCode(), noGate.body());
            assertTrue(noGate.body().contains("has no gate"), noGate.body());

            try (TestManager manager = TestManager.candidate(plane, nats, OWNER, "mgr", IID)) {
                HttpResponse<String> selecting = post(publicUrl, ManagerAuthorityRoute.ISSUE, issueBody(token,
                        identity.id(), ",\"commands\":[\"spawn\",\"status\",\"admin\"]"), null);
                assertEquals(400, selecting.statusCode(), selecting.body());
                assertTrue(json(selecting).path("error").asText().contains("commands"), selecting.body());

                HttpResponse<String> issued = post(publicUrl, ManagerAuthorityRoute.ISSUE, issueBody(token, identity.id(),
                        ""), null);
                assertEquals(200, issued.statusCode(), issued.body());
                JsonNode answer = json(issued);
                assertEquals(List.of("spawn", "status"), JSON.convertValue(answer.path("commands"), List.class),
                        "the registered surface, whatever the request says");
                long lifetime = answer.path("exp").asLong() - f.clock.instant().getEpochSecond();
                assertTrue(lifetime > 86_000 && lifetime <= 86_400, "the default standing lifetime: " + lifetime);

                CompletableFuture<String> violation = new CompletableFuture<>();
                Options options = new Options.Builder().server(nats.url()).authHandler(new Creds(answer.path("jwt")
                        .asText(), identity).authHandler()).inboxPrefix("_INBOX_" + identity.id()).noReconnect()
                        .errorListener(new ErrorListener() {
                            @Override
                            public void errorOccurred(Connection conn, String error) {
                                if (error.contains("Permissions Violation")) {
                                    violation.complete(error);
                                }
                            }
                        }).build();
                try (Connection served = Nats.connect(options)) {
                    String p = "cotal.alpha.svc.manager." + OWNER;
                    served.createDispatcher(m -> { }).subscribe(p + ".spawn");
                    served.flush(Duration.ofSeconds(5));
                    assertFalse(violation.isDone(), "a registered command is served");
                    served.createDispatcher(m -> { }).subscribe(p + ".admin");
                    served.flush(Duration.ofSeconds(5));
                    String refused = violation.get(10, TimeUnit.SECONDS);
                    assertTrue(refused.contains(p + ".admin"), "the broker refuses an unregistered command: " + refused);
                }

                JsonNode enrollment = json(post(loopback, ManagerAuthorityRoute.VERIFY, "{\"owner\":\"" + OWNER
                        + "\",\"instanceId\":\"" + IID + "\"}", capability()));
                assertEquals("candidate", enrollment.path("verdict").asText(), enrollment.toString());
                assertEquals(404, post(publicUrl, ManagerAuthorityRoute.VERIFY, "{\"owner\":\"" + OWNER
                        + "\",\"instanceId\":\"" + IID + "\"}", null).statusCode(), "verify-enrollment is loopback only");

                String renew = ",\"renew\":{\"registrationRevision\":" + answer.path("registrationRevision").asLong()
                        + ",\"processEpoch\":" + answer.path("processEpoch").asLong() + "}";
                HttpResponse<String> renewed = post(loopback, ManagerAuthorityRoute.ISSUE, issueBody(token, identity.id(),
                        renew), capability());
                assertEquals(200, renewed.statusCode(), renewed.body());

                plane.managers().freezeGate(new InstanceId(IID));
                HttpResponse<String> afterFreeze = post(publicUrl, ManagerAuthorityRoute.ISSUE, issueBody(token,
                        identity.id(), renew), null);
                assertEquals(409, afterFreeze.statusCode(), afterFreeze.body());
                assertTrue(afterFreeze.body().contains("the manager gate of " + IID + " is frozen"), afterFreeze.body());
                assertEquals("frozen", json(post(loopback, ManagerAuthorityRoute.VERIFY, "{\"owner\":\"" + OWNER
                        + "\",\"instanceId\":\"" + IID + "\"}", capability())).path("verdict").asText());
            }
        }
    }

    @Test
    void aRestartedManagerRenewsOnlyAfreshAtItsNewEpoch(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
             TokenExchange exchange = TokenExchange.start(ExchangeOptions.builder().plane(plane).stateDir(stateDir)
                     .publicAddress(new InetSocketAddress("127.0.0.1", 0)).build())) {
            ActorRow mgr = plane.ledger().grantActor(Principal.of(OWNER, "mgr"), Grant.of(List.of("chat"), List.of(),
                    List.of()));
            String publicUrl = exchange.publicUrl().orElseThrow();
            Identity identity = Identity.create();
            String token = bearer(plane, mgr);
            try (TestManager manager = TestManager.candidate(plane, nats, OWNER, "mgr", IID)) {
                JsonNode first = json(post(publicUrl, ManagerAuthorityRoute.ISSUE, issueBody(token, identity.id(), ""), null));
                String renew = ",\"renew\":{\"registrationRevision\":" + first.path("registrationRevision").asLong()
                        + ",\"processEpoch\":" + first.path("processEpoch").asLong() + "}";

                // the manager restarts: the plane opens its gate again, at the next epoch, and it observes it
                long spec = first.path("registrationRevision").asLong();
                long epoch = plane.managers().openGate(Principal.of(OWNER, "mgr"), new InstanceId(IID)).processEpoch();
                assertEquals(first.path("processEpoch").asLong() + 1, epoch);
                manager.status(spec, epoch);
                HttpResponse<String> stale = post(publicUrl, ManagerAuthorityRoute.ISSUE, issueBody(token, identity.id(),
                        renew), null);
                assertEquals(409, stale.statusCode(), "a renewal pinned to the predecessor's epoch: " + stale.body());

                HttpResponse<String> fresh = post(publicUrl, ManagerAuthorityRoute.ISSUE, issueBody(token, identity.id(),
                        ""), null);
                assertEquals(200, fresh.statusCode(), fresh.body());
                assertEquals(epoch, json(fresh).path("processEpoch").asLong(), "issued at the new epoch");

                // re-registered (a new spec revision): a fresh issue is pinned to what is registered now
                long respec = manager.spec(List.of(manager.cluster("ai.cotal.manager")));
                long reopened = plane.managers().openGate(Principal.of(OWNER, "mgr"), new InstanceId(IID)).processEpoch();
                manager.status(respec, reopened);
                JsonNode again = json(post(publicUrl, ManagerAuthorityRoute.ISSUE, issueBody(token, identity.id(), ""), null));
                assertEquals(respec, again.path("registrationRevision").asLong(), again.toString());
                assertEquals(reopened, again.path("processEpoch").asLong(), again.toString());
            }
        }
    }

    @Test
    void theExchangeGivesASessionGrantExactlyWithTheSessionCallerView(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
             TokenExchange exchange = TokenExchange.start(ExchangeOptions.builder().plane(plane).stateDir(stateDir)
                     .build())) {
            String url = exchange.loopbackUrl();
            String grant = IID + ".session00000000000000000001";
            for (String[] body : List.of(
                    new String[] {"{\"idpToken\":\"x\",\"actor\":\"laptop\",\"view\":\"session-caller\"}", "sessionGrant"},
                    new String[] {"{\"idpToken\":\"x\",\"actor\":\"laptop\",\"sessionGrant\":\"" + grant + "\"}",
                            "sessionGrant"},
                    new String[] {"{\"idpToken\":\"x\",\"actor\":\"laptop\",\"view\":\"manager-caller\",\"sessionGrant\":\""
                            + grant + "\"}", "sessionGrant"},
                    new String[] {"{\"idpToken\":\"x\",\"actor\":\"laptop\",\"view\":\"session-caller\",\"sessionGrant\":"
                            + "\"not-a-grant\"}", "sessionGrant"},
                    new String[] {"{\"idpToken\":\"x\",\"actor\":\"laptop\",\"managerInstanceId\":\"" + IID + "\"}",
                            "managerInstanceId"})) {
                HttpResponse<String> refused = post(url, "/exchange", body[0], capability());
                assertEquals(400, refused.statusCode(), body[0] + " -> " + refused.body());
                assertTrue(json(refused).path("error").asText().startsWith(body[1]), refused.body());
            }
            HttpResponse<String> consistent = post(url, "/exchange", "{\"idpToken\":\"x\",\"actor\":\"laptop\","
                    + "\"view\":\"session-caller\",\"sessionGrant\":\"" + grant + "\"}", capability());
            assertEquals(401, consistent.statusCode(), "a consistent body reaches the arm (which refuses the token): "
                    + consistent.body());
        }
    }
}
