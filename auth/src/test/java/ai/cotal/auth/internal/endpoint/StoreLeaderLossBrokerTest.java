package ai.cotal.auth.internal.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.Grant;
import ai.cotal.auth.Granter;
import ai.cotal.auth.PlaneFixture;
import ai.cotal.auth.ServiceEndpointHost;
import ai.cotal.auth.internal.plane.AuthorityPlaneImpl;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.id.Principal;
import ai.cotal.core.internal.kv.StoreNames;
import ai.cotal.core.stores.StoreReplicas;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.testbroker.ClusterMember;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.testbroker.NatsCluster;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.StreamInfo;
import io.nats.client.api.StreamInfoOptions;
import io.nats.client.api.Subject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #23: the auth store's leader killed (SIGKILL) during a stream of service-endpoint
 * invocations on a real three-member cluster, the plane's own member left up (the loss of the
 * plane's member is another test's). Every invocation ends granted, held (and is granted on
 * replay by its request id) or unavailable (nothing written; granted when sent again), and none
 * is applied twice: one binding, one operation and one grant row per request, and no other.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class StoreLeaderLossBrokerTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String AUTH_STREAM = "KV_" + StoreNames.bucket("auth", "alpha");
    private static final String ENDPOINT = "weather";
    /** The invocation of the stream during whose grant write the leader is killed. */
    private static final int KILLED_AT = 6;
    /** How many invocations the stream runs after the kill once they are granted again. */
    private static final int GRANTED_AFTER = 5;

    private final PlaneFixture f = new PlaneFixture();
    private final Granter.Owner owner = new Granter.Owner(EndpointFixture.OWNER, "laptop");

    @TempDir
    Path stateDir;

    private String config(ClusterMember m) {
        return ServerConfig.render(f.broker, List.of(f.space), ServerConfigOptions.builder().transport(Transport.plaintext())
                .storeDir(m.storeDir()).cluster(PlaneFixture.cluster(m)).build());
    }

    /** One invocation's first answer: a result, or the refusal the host threw. */
    private record Answer(HostRequest.CallerGrant request, HostResult result, CotalException refused, long millis) {
        String kind() {
            return refused != null ? "unavailable" : result.status().wire();
        }

        @Override
        public String toString() {
            return kind() + " in " + millis + " ms" + (refused != null ? " (" + refused.getMessage() + ")"
                    : result.reason() == null ? "" : " (" + result.reason() + ")");
        }
    }

    @Test
    void killingTheAuthStoreLeaderMidStreamEndsEveryInvocationGrantedHeldOrUnavailableAndAppliesNoneTwice(
            NatsBrokers brokers) throws Exception {
        NatsCluster cluster = brokers.startCluster(this::config);
        cluster.awaitMetaLeader(WAIT);
        cluster.awaitAccountJetStream(i -> f.admin(cluster.member(i)), WAIT);
        NatsBroker home = cluster.member(0); // every plane connection, effect connections included, is on n1
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(home, stateDir).serviceEndpoints(true)
                .storeReplicas(StoreReplicas.of(3)).build());
             Connection admin = f.admin(home)) {
            for (String o : List.of(EndpointFixture.OWNER, EndpointFixture.OTHER)) {
                plane.ledger().grantActor(Principal.of(o, "laptop"), Grant.of(List.of(), List.of(), List.of()));
            }
            ServiceEndpointHost host = plane.serviceEndpoints().orElseThrow();
            String iid = EndpointFixture.iid();
            HostResult registered = host.admit(owner, new HostRequest.Register(EndpointFixture.rid(), ENDPOINT, iid,
                    EndpointFixture.CONTRACT, List.of("ask")));
            assertEquals(HostResult.Status.PENDING, registered.status(), String.valueOf(registered.reason()));
            assertEquals(HostResult.Status.COMPLETED, host.serve(owner, new HostRequest.Decide(EndpointFixture.rid(),
                    ENDPOINT, iid, HostRequest.Decision.APPROVE)).status());

            JetStreamManagement jsm = admin.jetStreamManagement();
            String leader = leaderOffHome(admin, cluster.serverName(0));
            int victim = cluster.indexOf(leader);
            AtomicInteger invocation = new AtomicInteger();
            ServiceEndpointEngine engine = ((AuthorityPlaneImpl) plane).serviceEndpointEngine();
            engine.hooks(new Hooks() {
                @Override
                public void beforeStep(String key, Plan.Tag tag, EffectConnection effect) {
                    if (tag == Plan.Tag.GRANT && invocation.get() == KILLED_AT) {
                        cluster.kill(victim); // its bind, admission landed; its grant is the next write
                    }
                }
            });

            List<Answer> answers = new ArrayList<>();
            Thread stream = new Thread(() -> {
                int grantedAfterKill = 0;
                long giveUp = System.nanoTime() + Duration.ofSeconds(90).toNanos();
                while (grantedAfterKill < GRANTED_AFTER && System.nanoTime() < giveUp) {
                    int n = invocation.incrementAndGet();
                    HostRequest.CallerGrant grant = new HostRequest.CallerGrant(EndpointFixture.rid(), ENDPOINT, iid,
                            new HostRequest.Grantee(EndpointFixture.OTHER, "laptop"), List.of("ask"));
                    Answer answer;
                    long started = System.nanoTime();
                    try {
                        HostResult result = host.serve(owner, grant);
                        answer = new Answer(grant, result, null, (System.nanoTime() - started) / 1_000_000);
                    } catch (CotalException e) {
                        answer = new Answer(grant, null, e, (System.nanoTime() - started) / 1_000_000);
                    }
                    synchronized (answers) {
                        answers.add(answer);
                    }
                    if (n > KILLED_AT && answer.result() != null && answer.result().status() == HostResult.Status.GRANTED) {
                        grantedAfterKill++;
                    }
                }
            }, "invocation-stream");
            stream.start();
            stream.join(Duration.ofSeconds(120).toMillis());
            engine.hooks(Hooks.NONE);
            // the stream stops at its GRANTED_AFTER-th grant after the kill: every invocation after the kill may be
            // granted when a new leader is elected before the next write
            assertTrue(answers.size() >= KILLED_AT + GRANTED_AFTER, "the stream ran past the kill: " + answers.size());

            Map<String, Integer> byKind = new LinkedHashMap<>();
            for (Answer a : answers) {
                byKind.merge(a.kind(), 1, Integer::sum);
                if (a.refused() != null) {
                    assertEquals(ErrorCode.UNAVAILABLE, a.refused().code(), a.refused().getMessage());
                } else {
                    assertTrue(Set.of(HostResult.Status.GRANTED, HostResult.Status.HELD).contains(a.result().status()),
                            a.kind() + ": " + a.result().reason());
                }
            }
            Answer hit = answers.get(KILLED_AT - 1);
            assertEquals("held", hit.kind(), "the invocation whose grant write met the kill: " + hit);
            // no leader took the write (unavailable), or its member's route was not yet seen gone and no ack came (fenced)
            assertTrue(Set.of("unavailable", "fenced").contains(hit.result().reason()), "its grant write: " + hit);
            assertNotNull(hit.result().operationId(), "its binding landed: the held answer names its operation");
            System.out.println("store-leader-loss: killed " + leader + " at invocation " + KILLED_AT + "; first answers "
                    + byKind + ": " + answers.stream().filter(a -> !"granted".equals(a.kind())).map(Answer::toString).toList());
            assertNotEquals(leader, awaitLeader(jsm), "a surviving member leads the auth store");

            Map<String, String> operations = new LinkedHashMap<>(); // request id -> its operation (= grant id)
            for (Answer a : answers) {
                HostResult done = a.result() != null && a.result().status() == HostResult.Status.GRANTED ? a.result()
                        : replayUntilGranted(host, a.request());
                assertEquals(done.operationId(), done.grant().grantId(), "a grant's id is its operation's");
                if (a.result() != null && a.result().operationId() != null) {
                    assertEquals(a.result().operationId(), done.operationId(),
                            "a held answer names the operation its replay finished");
                }
                operations.put(a.request().requestId(), done.operationId());
            }
            assertEquals(answers.size(), new HashSet<>(operations.values()).size(), "one operation per request");

            String grants = "svc.grant." + ENDPOINT + "." + iid + ".";
            assertEquals(new HashSet<>(operations.values()), new HashSet<>(keysUnder(jsm, grants)),
                    "exactly one grant row per request, and none without a request");
            for (Map.Entry<String, String> e : operations.entrySet()) {
                JsonNode binding = row(jsm, "svc.req." + e.getKey());
                assertEquals(e.getValue(), binding.path("operationId").asText(), "the binding names the one operation");
                JsonNode op = row(jsm, "svc.op." + e.getValue());
                assertEquals("granted", op.path("state").asText());
                assertEquals(e.getKey(), op.path("requestId").asText());
            }
            List<String> indexed = new ArrayList<>();
            row(jsm, "svc.grantee." + EndpointFixture.OTHER + ".laptop." + ENDPOINT + "." + iid).path("grants")
                    .forEach(id -> indexed.add(id.asText()));
            assertEquals(indexed.size(), new HashSet<>(indexed).size(), "the grantee index lists no grant twice");
            assertEquals(new HashSet<>(operations.values()), new HashSet<>(indexed), "it lists every grant");
            assertEquals(0, row(jsm, "svc.cap." + ENDPOINT + "." + iid).path("held").size(),
                    "every request released its capacity slot");
            assertTrue(keysUnder(jsm, "svc.req.").containsAll(operations.keySet()));
        }
    }

    /** Sends {@code request} again (its request id) until it is granted; held and unavailable answers retry. */
    private static HostResult replayUntilGranted(ServiceEndpointHost host, HostRequest.CallerGrant request)
            throws InterruptedException {
        long giveUp = System.nanoTime() + WAIT.toNanos();
        String last = "";
        while (System.nanoTime() < giveUp) {
            try {
                HostResult result = host.serve(new Granter.Owner(EndpointFixture.OWNER, "laptop"), request);
                if (result.status() == HostResult.Status.GRANTED) {
                    return result;
                }
                assertEquals(HostResult.Status.HELD, result.status(), "a replay is granted or held: " + result.reason());
                last = "held " + result.reason();
            } catch (CotalException e) {
                assertEquals(ErrorCode.UNAVAILABLE, e.code(), e.getMessage());
                last = e.getMessage();
            }
            Thread.sleep(100);
        }
        return fail(request.requestId() + " was not granted on replay within " + WAIT + ": " + last);
    }

    /**
     * Moves the auth store's leadership off {@code home} when it is there (the plane's member
     * stays up in this test) and returns the leader's server name.
     */
    private static String leaderOffHome(Connection admin, String home) throws Exception {
        JetStreamManagement jsm = admin.jetStreamManagement();
        String leader = awaitLeader(jsm);
        if (leader.equals(home)) {
            admin.request("$JS.API.STREAM.LEADER.STEPDOWN." + AUTH_STREAM, new byte[0], Duration.ofSeconds(5));
            long giveUp = System.nanoTime() + WAIT.toNanos();
            while (leader.equals(home)) {
                if (System.nanoTime() > giveUp) {
                    fail("the auth store's leadership did not move off " + home);
                }
                Thread.sleep(50);
                leader = awaitLeader(jsm);
            }
        }
        return leader;
    }

    /** The auth store's leader once one is elected (stream info is answered by the leader). */
    private static String awaitLeader(JetStreamManagement jsm) throws Exception {
        long giveUp = System.nanoTime() + WAIT.toNanos();
        while (true) {
            try {
                String leader = jsm.getStreamInfo(AUTH_STREAM).getClusterInfo().getLeader();
                if (leader != null && !leader.isEmpty()) {
                    return leader;
                }
            } catch (java.io.IOException | JetStreamApiException e) {
                // electing: no answer yet
            }
            if (System.nanoTime() > giveUp) {
                throw new AssertionError(AUTH_STREAM + " has no leader after " + WAIT);
            }
            Thread.sleep(50);
        }
    }

    /** The keys under {@code prefix}, from the leader's subject index. */
    private static List<String> keysUnder(JetStreamManagement jsm, String prefix) throws Exception {
        String bucketPrefix = "$KV." + StoreNames.bucket("auth", "alpha") + ".";
        StreamInfo info = jsm.getStreamInfo(AUTH_STREAM, StreamInfoOptions.filterSubjects(bucketPrefix + prefix + ">"));
        assertNotNull(info.getClusterInfo().getLeader(), "the listing is the leader's");
        List<String> keys = new ArrayList<>();
        List<Subject> subjects = info.getStreamState().getSubjects();
        if (subjects != null) {
            for (Subject s : subjects) {
                assertEquals(1, s.getCount(), s.getName());
                keys.add(s.getName().substring(bucketPrefix.length() + prefix.length()));
            }
        }
        return keys;
    }

    /** The row at {@code key}, read from the leader (the auth store has no direct get). */
    private static JsonNode row(JetStreamManagement jsm, String key) throws Exception {
        byte[] data = jsm.getLastMessage(AUTH_STREAM, "$KV." + StoreNames.bucket("auth", "alpha") + "." + key).getData();
        return new ObjectMapper().readTree(new String(data, StandardCharsets.UTF_8));
    }
}
