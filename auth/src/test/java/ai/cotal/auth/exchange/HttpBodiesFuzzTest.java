package ai.cotal.auth.exchange;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.cotal.auth.ActorTokens;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.Grant;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.IdpPin;
import ai.cotal.auth.PlaneFixture;
import ai.cotal.auth.RunParty;
import ai.cotal.auth.records.RunRecords;
import ai.cotal.auth.TestManager;
import ai.cotal.auth.fuzz.Fuzz;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import ai.cotal.servicehost.ServiceEndpointHostClient;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile HTTP bodies (issue #11 part 1) through the exchange's real routes on loopback, with the
 * capability, against an open plane: the token exchange, both service-endpoint routes and the
 * interactive and managed retire routes, and the run admission and attempt routes (SPEC §14.7).
 * Each mutated body must get a JSON answer with a status
 * the route documents; a 500, a non-JSON body or a slow answer is a failure.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class HttpBodiesFuzzTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<Integer> REFUSALS = Set.of(400, 401, 403, 409, 413, 429);
    private static final String AGENT_OWNER = "u_abcdefghijklmnopqrstuvwxyz";

    @TempDir
    Path stateDir;

    private final HttpClient http = HttpClient.newHttpClient();

    /** Posts {@code body}; returns on 200, throws a typed refusal on a documented refusal, fails otherwise. */
    private Fuzz.Parser route(String url, String capability) {
        return input -> {
            HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create(url))
                    .header("Content-Type", "application/json").header("Authorization", "Bearer " + capability)
                    .timeout(Duration.ofSeconds(5)).POST(HttpRequest.BodyPublishers.ofByteArray(input)).build(),
                    HttpResponse.BodyHandlers.ofString());
            JsonNode body = JSON.readTree(answer.body());
            if (body == null || !body.isObject()) {
                throw new AssertionError(answer.statusCode() + " with a body that is not a JSON object");
            }
            if (answer.statusCode() == 200) {
                return;
            }
            if (!REFUSALS.contains(answer.statusCode()) || !body.path("error").isTextual()) {
                throw new AssertionError("status " + answer.statusCode() + ": " + answer.body());
            }
            throw new CotalException(ErrorCode.BAD_REQUEST, "refused with " + answer.statusCode());
        };
    }

    /** Every seed must be answered 200 (else the run would only exercise refusals), then the mutants. */
    private static void fuzz(String name, Fuzz.Parser route, String... seeds) {
        for (int i = 0; i < seeds.length; i++) {
            byte[] seed = seeds[i].getBytes(StandardCharsets.UTF_8);
            assertDoesNotThrow(() -> route.parse(seed), name + " seed " + i + " is answered 200");
        }
        Fuzz.Report report = Fuzz.run(name, Fuzz.utf8(seeds), route);
        System.out.println("fuzz " + report);
        assertEquals(List.of(), report.failures(), report.toString());
    }

    @Test
    void exchangeAndHostRoutesAnswerEveryMutatedBodyWithADocumentedStatus(NatsBrokers brokers) throws Exception {
        PlaneFixture f = new PlaneFixture();
        NatsBroker nats = brokers.start(f::config);
        try (TestIdp idp = new TestIdp();
             // the budgets (SPEC §13.20) are raised so mutated bodies keep reaching the success path; a 429 stays a
             // documented refusal all the same
             AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).serviceEndpoints(true)
                     .writeBudgets(new ai.cotal.auth.WriteBudgets(1_000_000, 1_000_000, 1_000_000, 1_000_000, 1_000_000,
                             1_000_000)).build())) {
            IdpPin pin = IdpPin.pin(stateDir, idp.url());
            Owner owner = plane.deriveOwner(pin.issuer(), "alice");
            plane.ledger().grantActor(Principal.of(owner.value(), "laptop"), Grant.of(List.of("chat"), List.of(), List.of()));
            plane.ledger().grantManagedActor(Principal.of(AGENT_OWNER, "agent1"), Grant.of(List.of(), List.of(), List.of()),
                    HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest("agent-secret"
                            .getBytes(StandardCharsets.UTF_8))), new LifecycleUid("abcdefghijklmnopqrstuvwxyz"));
            try (TokenExchange exchange = TokenExchange.start(ExchangeOptions.builder().plane(plane).stateDir(stateDir)
                    .limits(FaceLimits.DEFAULT.withRefusalsPerMinute(FaceLimits.MAX_REFUSALS_PER_MINUTE)).build())) {
                String capability = JSON.readTree(Files.readString(stateDir.resolve(TokenExchange.DISCOVERY_FILE)))
                        .path("capability").asText();
                String token = idp.token("alice", 3600);
                String url = exchange.loopbackUrl();

                String iid = "abcdefghijklmnopqrstuvwxyz";
                fuzz("http-authority", route(url + ServiceEndpointHostClient.AUTHORITY_ROUTE, capability),
                        "{\"idpToken\":\"" + token + "\",\"request\":{\"kind\":\"register\","
                                + "\"requestId\":\"req-fuzz-000000002\",\"endpoint\":\"weather\",\"instanceId\":\"" + iid
                                + "\",\"contractDigest\":\"sha256:" + "c".repeat(64) + "\",\"callerCeiling\":[\"ask\"]}}");
                fuzz("http-exchange", route(url + "/exchange", capability),
                        "{\"idpToken\":\"" + token + "\",\"actor\":\"laptop\",\"ttlSec\":120}",
                        "{\"idpToken\":\"" + token + "\",\"actor\":\"laptop\",\"view\":\"manager-caller\"}",
                        "{\"owner\":\"" + AGENT_OWNER + "\",\"actor\":\"agent1\",\"actorToken\":\"agent-secret\","
                                + "\"ttlSec\":300}");
                fuzz("http-host", route(url + ServiceEndpointHostClient.HOST_ROUTE, capability),
                        "{\"idpToken\":\"" + token + "\",\"request\":{\"kind\":\"name-read\","
                                + "\"name\":\"forecast\"}}",
                        "{\"idpToken\":\"" + token + "\",\"request\":{\"kind\":\"decide\","
                                + "\"requestId\":\"req-fuzz-000000001\",\"endpoint\":\"weather\",\"instanceId\":\"" + iid
                                + "\",\"decision\":\"approve\"}}",
                        "{\"idpToken\":\"" + token + "\",\"request\":{\"kind\":\"instance-read\","
                                + "\"endpoint\":\"weather\",\"instanceId\":\"" + iid + "\"}}");
                // the laptop's lifecycle is active (the exchange minted at it): the seed retires it, its replays
                // answer alreadyRetired, a mutated uid notStarted or conflict (SPEC §14.1)
                LifecycleUid uid = plane.ledger().find(Principal.of(owner.value(), "laptop")).orElseThrow().lifecycleUid();
                fuzz("http-retire", route(url + "/interactive-lifecycle/retire", capability),
                        "{\"owner\":\"" + owner + "\",\"actor\":\"laptop\",\"lifecycleUid\":\"" + uid + "\"}",
                        "{\"owner\":\"" + AGENT_OWNER + "\",\"actor\":\"nobody\",\"lifecycleUid\":\"" + iid + "\"}");
                // agent2's first lifecycle was activated and its grant moved on (SPEC §14.1: a managed retire needs
                // that): the seed retires it, its replays answer alreadyRetired
                LifecycleUid first = ActorTokens.newLifecycleUid();
                plane.ledger().grantManagedActor(Principal.of(AGENT_OWNER, "agent2"), Grant.of(List.of(), List.of(), List.of()),
                        ActorTokens.tokenHash(ActorTokens.newActorToken()), first);
                plane.lifecycles().activateManaged(Principal.of(AGENT_OWNER, "agent2"), first);
                plane.ledger().grantManagedActor(Principal.of(AGENT_OWNER, "agent2"), Grant.of(List.of(), List.of(), List.of()),
                        ActorTokens.tokenHash(ActorTokens.newActorToken()), ActorTokens.newLifecycleUid());
                fuzz("http-retire-managed", route(url + "/managed-lifecycle/retire", capability),
                        "{\"owner\":\"" + AGENT_OWNER + "\",\"actor\":\"agent2\",\"lifecycleUid\":\"" + first + "\"}",
                        "{\"owner\":\"" + AGENT_OWNER + "\",\"actor\":\"nobody\",\"lifecycleUid\":\"" + iid + "\"}");

                // a candidate manager that declares the run commands, its managed worker and its supervise bearer
                // (SPEC §14.7): the seeds admit a run and issue its start; their replays answer the stored rows
                plane.ledger().grantActor(Principal.of(AGENT_OWNER, "mgr"), Grant.of(List.of("supervise"), List.of(),
                        List.of()));
                LifecycleUid workerUid = ActorTokens.newLifecycleUid();
                plane.ledger().grantManagedActor(Principal.of(AGENT_OWNER, "worker"), Grant.of(List.of(), List.of(),
                        List.of()), ActorTokens.tokenHash(ActorTokens.newActorToken()), workerUid);
                try (TestManager manager = TestManager.candidate(plane, nats, AGENT_OWNER, "mgr", RunParty.IID,
                        RunParty.RUN_COMMANDS)) {
                    LifecycleUid mgrUid = plane.ledger().find(Principal.of(AGENT_OWNER, "mgr")).orElseThrow().lifecycleUid();
                    String bearer = plane.bearers().issue(BearerRequest.member(Principal.of(AGENT_OWNER, "mgr"),
                            List.of("supervise"), mgrUid, plane.credentials().mint(Principal.of(AGENT_OWNER, "mgr"), mgrUid).id(),
                            Duration.ofMinutes(5)));
                    String run = "run00000000000000000000001";
                    fuzz("http-run-admission", route(url + RunRoute.ADMISSION, capability),
                            "{\"bearer\":\"" + bearer + "\",\"request\":{\"instanceId\":\"" + RunParty.IID
                                    + "\",\"runId\":\"" + run + "\",\"actor\":\"worker\",\"lifecycleUid\":\""
                                    + workerUid + "\"}}");
                    fuzz("http-run-attempt", route(url + RunRoute.ATTEMPT, capability),
                            "{\"bearer\":\"" + bearer + "\",\"request\":{\"instanceId\":\"" + RunParty.IID
                                    + "\",\"runId\":\"" + run + "\",\"attemptId\":\"att00000000000000000000001\","
                                    + "\"kind\":\"start\",\"driver\":\"" + Identity.create().id() + "\"}}");
                    // the operator resumes a waiting checkpoint of that run (loopback, the capability alone)
                    manager.put(RunRecords.checkpointKey(RunParty.IID, "cp1"), RunRecords.waiting("cp1", run));
                    fuzz("http-run-operator-attempt", route(url + RunRoute.OPERATOR, capability),
                            "{\"auditId\":\"ops@example.org\",\"owner\":\"" + AGENT_OWNER + "\",\"instanceId\":\""
                                    + RunParty.IID + "\",\"runId\":\"" + run + "\",\"attemptId\":"
                                    + "\"att00000000000000000000002\",\"kind\":\"resume\",\"driver\":\""
                                    + Identity.create().id() + "\",\"checkpoint\":\"cp1\"}");
                }
                // the operator's actor routes (SPEC §13.18), last: their mutants write and revoke rows
                fuzz("http-actor-grant", route(url + ActorRoute.GRANT, capability),
                        "{\"subject\":\"carol\",\"actor\":\"fz\",\"allowPublish\":[\"general\"],\"label\":\"x\"}",
                        "{\"owner\":\"" + AGENT_OWNER + "\",\"actor\":\"fz2\",\"scope\":[\"chat\"]}");
                fuzz("http-actor-list", route(url + ActorRoute.LIST, capability), "{\"subject\":\"carol\"}",
                        "{\"owner\":\"" + AGENT_OWNER + "\"}");
                fuzz("http-actor-revoke", route(url + ActorRoute.REVOKE, capability),
                        "{\"subject\":\"carol\",\"actor\":\"fz\"}", "{\"owner\":\"" + AGENT_OWNER + "\",\"actor\":\"fz3\"}");
            }
        }
    }
}
