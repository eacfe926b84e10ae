package ai.cotal.auth.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.PlaneFixture;
import ai.cotal.auth.RunParty;
import ai.cotal.auth.internal.callout.CalloutFixture;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
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
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /manager-service-authority/run-admission} and {@code .../run-attempt} (SPEC §14.7) on
 * the public face: the holder comes from a verified bearer that passes the connect check; closed
 * bodies; refusals through the one mapping. {@code .../run-operator-attempt} is the loopback
 * face's, under its capability alone.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class RunRouteBrokerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String RUN = "run00000000000000000000001";
    private final CalloutFixture cf = new CalloutFixture();
    private final PlaneFixture f = cf.plane;
    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path stateDir;

    private HttpResponse<String> post(String url, String route, String body) throws Exception {
        return post(url, route, body, null);
    }

    private HttpResponse<String> post(String url, String route, String body, String capability) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url + route)).header("Content-Type",
                "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (capability != null) {
            request.header("Authorization", "Bearer " + capability);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String bearer(AuthAuthorityPlane plane, List<String> scope) {
        LifecycleUid uid = plane.ledger().find(Principal.of(RunParty.OWNER, "mgr")).orElseThrow().lifecycleUid();
        CredentialId credential = plane.credentials().mint(Principal.of(RunParty.OWNER, "mgr"), uid).id();
        return plane.bearers().issue(BearerRequest.member(Principal.of(RunParty.OWNER, "mgr"), scope, uid, credential,
                Duration.ofMinutes(5)));
    }

    @Test
    void theOperatorAttemptIsTheLoopbackCapabilitysAlone(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(cf::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
                RunParty p = RunParty.of(plane, nats, cf);
                TokenExchange exchange = TokenExchange.start(ExchangeOptions.builder().plane(plane).stateDir(stateDir)
                        .publicAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build())) {
            p.admit(RUN);
            p.waiting(RUN, "cp1");
            String capability = JSON.readTree(Files.readString(stateDir.resolve(TokenExchange.DISCOVERY_FILE)))
                    .path("capability").asText();
            String body = "{\"auditId\":\"ops@example.org\",\"owner\":\"" + RunParty.OWNER + "\",\"instanceId\":\""
                    + RunParty.IID + "\",\"runId\":\"" + RUN + "\",\"attemptId\":\"att00000000000000000000001\","
                    + "\"kind\":\"resume\",\"driver\":\"" + Identity.create().id() + "\",\"checkpoint\":\"cp1\"}";
            HttpResponse<String> issued = post(exchange.loopbackUrl(), RunRoute.OPERATOR, body, capability);
            assertEquals(200, issued.statusCode(), issued.body());
            JsonNode answer = JSON.readTree(issued.body());
            assertEquals("resume", answer.path("kind").asText());
            assertTrue(answer.path("jwt").asText().startsWith("eyJ"));
            assertTrue(JSON.readTree(post(exchange.loopbackUrl(), RunRoute.OPERATOR, body, capability).body())
                    .path("replayed").asBoolean(), "a replay answers the stored attempt");

            assertEquals(401, post(exchange.loopbackUrl(), RunRoute.OPERATOR, body, null).statusCode(),
                    "the capability is the operator's credential");
            assertEquals(404, post(exchange.publicUrl().orElseThrow(), RunRoute.OPERATOR, body, null).statusCode(),
                    "loopback only");
            HttpResponse<String> bearer = post(exchange.loopbackUrl(), RunRoute.OPERATOR, body.replace("{\"auditId\"",
                    "{\"bearer\":\"x\",\"auditId\""), capability);
            assertEquals(400, bearer.statusCode(), "closed JSON: " + bearer.body());
            HttpResponse<String> start = post(exchange.loopbackUrl(), RunRoute.OPERATOR, body.replace("\"resume\"",
                    "\"start\"").replace(",\"checkpoint\":\"cp1\"", ""), capability);
            assertEquals(400, start.statusCode(), start.body());
            assertEquals("kind: an operator drives resume and answer only", JSON.readTree(start.body()).path("error")
                    .asText());
        }
    }

    @Test
    void theRunRoutesDeriveTheHolderFromABearer(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(cf::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
                RunParty p = RunParty.of(plane, nats, cf);
                TokenExchange exchange = TokenExchange.start(ExchangeOptions.builder().plane(plane).stateDir(stateDir)
                        .publicAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build())) {
            String url = exchange.publicUrl().orElseThrow();
            String supervise = bearer(plane, List.of("supervise"));
            String admission = "{\"bearer\":\"" + supervise + "\",\"request\":{\"instanceId\":\"" + RunParty.IID
                    + "\",\"runId\":\"" + RUN + "\",\"actor\":\"worker\",\"lifecycleUid\":\"" + p.workerUid + "\"}}";
            HttpResponse<String> admitted = post(url, RunRoute.ADMISSION, admission);
            assertEquals(200, admitted.statusCode(), admitted.body());
            assertEquals(RUN, JSON.readTree(admitted.body()).path("runId").asText());
            assertTrue(JSON.readTree(post(url, RunRoute.ADMISSION, admission).body()).path("replayed").asBoolean());

            String driver = Identity.create().id();
            String attempt = "{\"bearer\":\"" + supervise + "\",\"request\":{\"instanceId\":\"" + RunParty.IID
                    + "\",\"runId\":\"" + RUN + "\",\"attemptId\":\"att00000000000000000000001\",\"kind\":\"start\","
                    + "\"driver\":\"" + driver + "\"}}";
            HttpResponse<String> issued = post(url, RunRoute.ATTEMPT, attempt);
            assertEquals(200, issued.statusCode(), issued.body());
            JsonNode answer = JSON.readTree(issued.body());
            assertEquals("start", answer.path("kind").asText());
            assertTrue(answer.path("jwt").asText().startsWith("eyJ"));

            HttpResponse<String> noScope = post(url, RunRoute.ATTEMPT, attempt.replace(supervise, bearer(plane, List.of())));
            assertEquals(403, noScope.statusCode(), noScope.body());
            assertEquals("refused: permission-denied", JSON.readTree(noScope.body()).path("error").asText(),
                    "the supervise refusal holds a '/': the body names its kind only (SPEC §2)");
            HttpResponse<String> badBearer = post(url, RunRoute.ATTEMPT, attempt.replace(supervise, "not.a.bearer"));
            assertEquals(401, badBearer.statusCode(), badBearer.body());
            HttpResponse<String> open = post(url, RunRoute.ATTEMPT, attempt.replace("\"kind\"", "\"owner\":\"x\",\"kind\""));
            assertEquals(400, open.statusCode(), "closed JSON: " + open.body());
            HttpResponse<String> get = http.send(HttpRequest.newBuilder(URI.create(url + RunRoute.ATTEMPT)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(405, get.statusCode());
        }
    }
}
