package ai.cotal.auth.bench;

import ai.cotal.auth.internal.plane.AuthorityPlaneImpl;
import ai.cotal.auth.ActorRow;
import ai.cotal.auth.ActorTokens;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.EndpointInstance;
import ai.cotal.auth.Grant;
import ai.cotal.auth.Granter;
import ai.cotal.auth.InboxNonce;
import ai.cotal.auth.ServiceEndpointHost;
import ai.cotal.auth.internal.callout.AuthCallout;
import ai.cotal.auth.internal.callout.CalloutOptions;
import ai.cotal.auth.exchange.ExchangeOptions;
import ai.cotal.auth.exchange.TokenExchange;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.Principal;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.jwt.Permission;
import ai.cotal.core.jwt.ResponsePermission;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.core.id.SpaceName;
import ai.cotal.core.trust.SpaceSigner;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.testbroker.NatsBroker;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Scenario (issue #18): request/reply to an approved service-endpoint instance through
 * connections the auth callout admitted (the server with an {@code endpoint-server} bearer from
 * the token exchange, the callers by a caller grant), against the same request/reply between
 * static-JWT connections whose user JWTs carry the same permissions, minted directly (no callout).
 * A third path, static JWTs without permission lists, shows what the permissions themselves cost.
 *
 * <p>{@code scripts/bench EndpointCallScenario [requestsPerRun] [repeats]} (20000 and 5): at 1
 * and at 8 caller threads, each thread with its own caller connection looping
 * {@code request(<stem>.ask, 64 bytes)}; one server connection answers 64 bytes from a queue
 * subscription on {@code <stem>.>}. Every repetition opens fresh connections for each path (not
 * measured) and runs each path in {@value #SLICES} slices, the paths' order reversed from one
 * slice to the next, so machine noise hits them alike; each path has its own approved instance.
 * Prints, per thread count, the median run of each path with the broker's and this JVM's CPU
 * time per request over all repetitions (CPU time, unlike the rate, does not grow when other
 * processes take the cores), the ratio of each repetition's callout run to its static run
 * (median, min, max) and the ratio of each callout slice to the static slice next to it in time
 * (median and quartiles).
 */
public final class EndpointCallScenario {
    private static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";
    private static final String SERVICE_TOKEN = "bench-service-secret";
    private static final int[] THREADS = {1, 8};
    private static final byte[] PAYLOAD = new byte[64];
    private static final Duration ANSWER = Duration.ofSeconds(10);
    private static final int SLICES = 10;

    /** How a path's connections are admitted. */
    private enum Admission {
        STATIC("static user JWTs, same permissions (floor)"),
        CALLOUT("auth callout (serving bearer + granted caller)"),
        UNRESTRICTED("static user JWTs, no permission lists (reference)");

        final String label;

        Admission(String label) {
            this.label = label;
        }
    }

    private EndpointCallScenario() {
    }

    public static void main(String[] args) throws Exception {
        int perRun = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int repeats = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        Clock clock = Clock.systemUTC();
        SpaceAuth auth = SpaceAuth.create("alpha", clock);
        CalloutAuth callout = CalloutAuth.create("alpha", auth.broker(), auth.account().accountPublicKey(), clock);
        InMemorySecretStore store = BenchSpace.store(auth, callout);
        Path stateDir = Files.createTempDirectory("endpoint-call-scenario");
        try (NatsBroker nats = BenchSpace.broker(auth, callout.jwt());
             AuthAuthorityPlane plane = AuthAuthorityPlane.open(BenchSpace.unbudgeted(AuthPlaneOptions.builder()
                     .server(nats.url()).space("alpha").stateDir(stateDir).secretStore(store).signer(auth.strip())
                     .serviceEndpoints(true)).build());
             AuthCallout responder = AuthCallout.start(CalloutOptions.builder().server(nats.url()).callout(callout)
                     .plane(((AuthorityPlaneImpl) plane).calloutAuthority()).signer(auth.strip()).build());
             TokenExchange exchange = TokenExchange.start(ExchangeOptions.builder().plane(plane).stateDir(stateDir)
                     .build())) {
            Space space = new Space(nats, auth.strip(), callout, plane, exchange, stateDir);
            Map<Admission, EndpointInstance> instances = space.approved();
            ProcessCpu cpu = ProcessCpu.ofBroker();
            Map<Integer, Map<Admission, List<List<Run>>>> runs = new LinkedHashMap<>();
            for (int rep = -1; rep < repeats; rep++) { // repetition -1 warms up and is not counted
                Map<Admission, Endpoint> open = new LinkedHashMap<>();
                try {
                    for (Admission admission : Admission.values()) {
                        open.put(admission, space.open(admission, instances.get(admission)));
                    }
                    for (int threads : THREADS) {
                        Map<Admission, List<Run>> slices = slices(open, cpu, threads, perRun / SLICES, rep);
                        if (rep >= 0) {
                            Map<Admission, List<List<Run>>> byAdmission = runs.computeIfAbsent(threads,
                                    t -> new LinkedHashMap<>());
                            slices.forEach((admission, run) -> byAdmission.computeIfAbsent(admission,
                                    a -> new ArrayList<>()).add(run));
                        }
                    }
                } finally {
                    for (Endpoint endpoint : open.values()) {
                        endpoint.close();
                    }
                }
            }
            runs.forEach(EndpointCallScenario::print);
        }
    }

    /** One measured stretch: its round trips, and the CPU ticks the broker and this JVM spent in it. */
    private record Run(Concurrent.Result result, long brokerTicks, long jvmTicks) {
        /** The slices of one repetition as one run: all their latencies over the sum of their wall times. */
        static Run merged(List<Run> slices) {
            long wall = slices.stream().mapToLong(r -> r.result.wallNanos()).sum();
            return new Run(new Concurrent.Result(slices.stream().flatMapToLong(r -> Arrays.stream(r.result.times()))
                    .toArray(), wall), slices.stream().mapToLong(Run::brokerTicks).sum(),
                    slices.stream().mapToLong(Run::jvmTicks).sum());
        }

        double rate() {
            return result.rate();
        }
    }

    /**
     * {@value #SLICES} slices of {@code requests} round trips per path, the paths' order reversed
     * from one slice to the next (ABC CBA ...), so a burst of load elsewhere on the machine falls
     * on all of them.
     */
    private static Map<Admission, List<Run>> slices(Map<Admission, Endpoint> open, ProcessCpu cpu, int threads,
            int requests, int rep) throws Exception {
        Map<Admission, List<Run>> slices = new LinkedHashMap<>();
        open.keySet().forEach(admission -> slices.put(admission, new ArrayList<>()));
        for (int slice = 0; slice < SLICES; slice++) {
            List<Admission> order = new ArrayList<>(open.keySet());
            if ((slice + rep) % 2 == 1) {
                java.util.Collections.reverse(order);
            }
            for (Admission admission : order) {
                long broker = cpu.brokerTicks();
                long jvm = cpu.jvmTicks();
                Concurrent.Result result = open.get(admission).run(threads, requests);
                slices.get(admission).add(new Run(result, cpu.brokerTicks() - broker, cpu.jvmTicks() - jvm));
            }
        }
        return slices;
    }

    /**
     * The table at {@code threads}: each path's median repetition, then the callout/static
     * ratios per repetition and per pair of adjacent slices, then CPU per request over all
     * repetitions.
     */
    private static void print(int threads, Map<Admission, List<List<Run>>> slices) {
        Map<Admission, List<Run>> reps = new LinkedHashMap<>();
        slices.forEach((admission, r) -> reps.put(admission, r.stream().map(Run::merged).toList()));
        int repeats = reps.get(Admission.STATIC).size();
        System.out.println("\n| path (" + threads + (threads == 1 ? " thread" : " threads") + ", median of " + repeats
                + " interleaved runs) | requests/s | p50 ms | p99 ms | ratio to floor | broker CPU µs/request"
                + " | JVM CPU µs/request |");
        System.out.println("|---|---|---|---|---|---|---|");
        Concurrent.Result floor = Concurrent.median(reps.get(Admission.STATIC).stream().map(Run::result).toList());
        for (Admission admission : Admission.values()) {
            Concurrent.Result median = Concurrent.median(reps.get(admission).stream().map(Run::result).toList());
            long requests = reps.get(admission).stream().mapToLong(r -> r.result.times().length).sum();
            System.out.printf("%s %.1f | %.1f |%n", median.row(admission.label, floor),
                    micros(reps.get(admission).stream().mapToLong(Run::brokerTicks).sum(), requests),
                    micros(reps.get(admission).stream().mapToLong(Run::jvmTicks).sum(), requests));
        }
        double[] paired = new double[repeats];
        for (int rep = 0; rep < repeats; rep++) {
            paired[rep] = reps.get(Admission.CALLOUT).get(rep).rate() / reps.get(Admission.STATIC).get(rep).rate();
        }
        Arrays.sort(paired);
        System.out.printf("%ncallout / static per repetition at %d thread(s): median %.2fx, min %.2fx, max %.2fx (%s)%n",
                threads, paired[repeats / 2], paired[0], paired[repeats - 1], Arrays.toString(
                        Arrays.stream(paired).mapToObj(r -> String.format("%.2f", r)).toArray()));
        List<Double> adjacent = new ArrayList<>();
        for (int rep = 0; rep < repeats; rep++) {
            for (int i = 0; i < SLICES; i++) {
                adjacent.add(slices.get(Admission.CALLOUT).get(rep).get(i).rate()
                        / slices.get(Admission.STATIC).get(rep).get(i).rate());
            }
        }
        double[] sorted = adjacent.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        System.out.printf("callout / static per adjacent slice (%d pairs): median %.2fx, quartiles %.2fx-%.2fx%n",
                sorted.length, sorted[sorted.length / 2], sorted[sorted.length / 4], sorted[sorted.length * 3 / 4]);
    }

    private static double micros(long ticks, long requests) {
        return ticks < 0 ? Double.NaN : ticks * 1e6 / ProcessCpu.TICKS_PER_SECOND / requests;
    }

    /** The space, its plane, responder and exchange; opens each path's connections. */
    private record Space(NatsBroker nats, SpaceSigner signer, CalloutAuth callout, AuthAuthorityPlane plane,
            TokenExchange exchange, Path stateDir) {
        /**
         * One approved instance of {@code bench} per path, so the paths' servers never answer each
         * other's callers; the owner's {@code caller} is granted {@code ask} on the callout path's
         * instance only.
         */
        Map<Admission, EndpointInstance> approved() {
            plane.ledger().grantActor(Principal.of(OWNER, "laptop"), Grant.of(List.of("chat"), List.of(), List.of()));
            plane.ledger().grantManagedActor(Principal.of(OWNER, "benchsvc"), Grant.of(List.of("chat"), List.of(), List.of()),
                    ActorTokens.tokenHash(SERVICE_TOKEN), ActorTokens.newLifecycleUid());
            plane.ledger().grantActor(Principal.of(OWNER, "caller"), Grant.of(List.of("chat"), List.of(), List.of()));
            ServiceEndpointHost host = plane.serviceEndpoints().orElseThrow();
            Granter owner = new Granter.Owner(OWNER, "laptop");
            Map<Admission, EndpointInstance> instances = new LinkedHashMap<>();
            for (Admission admission : Admission.values()) {
                int n = admission.ordinal();
                EndpointInstance instance = new EndpointInstance("bench", "benchinstance000000000000" + n);
                expect(host.admit(owner, new HostRequest.Register("bench-register-000" + n, instance.endpoint(),
                        instance.instanceId(), "sha256:" + "c".repeat(64), List.of("ask"))), HostResult.Status.PENDING);
                expect(host.serve(owner, new HostRequest.Decide("bench-approve-0000" + n, instance.endpoint(),
                        instance.instanceId(), HostRequest.Decision.APPROVE)), HostResult.Status.COMPLETED);
                instances.put(admission, instance);
            }
            EndpointInstance granted = instances.get(Admission.CALLOUT);
            expect(host.serve(owner, new HostRequest.CallerGrant("bench-grant-000001", granted.endpoint(),
                    granted.instanceId(), new HostRequest.Grantee(OWNER, "caller"), List.of("ask"))), HostResult.Status.GRANTED);
            return instances;
        }

        private static void expect(HostResult result, HostResult.Status status) {
            if (result.status() != status) {
                throw new IllegalStateException("the host answered " + result.status().wire() + ": " + result.reason());
            }
        }

        /** The server and 8 callers of {@code admission}, the server already answering. */
        Endpoint open(Admission admission, EndpointInstance instance) throws Exception {
            String stem = instance.subjectStem(new SpaceName("alpha").subjectPrefix());
            int callers = Arrays.stream(THREADS).max().orElseThrow();
            List<Connection> opened = new ArrayList<>();
            try {
                Connection server = admission == Admission.CALLOUT ? viaCallout("benchsvc", servingBearer(instance))
                        : statically("benchsvc", admission, stem, true);
                opened.add(server);
                Dispatcher answering = server.createDispatcher(m -> server.publish(m.getReplyTo(), PAYLOAD));
                answering.subscribe(stem + ".>", "bench-workers");
                server.flush(ANSWER);
                String bearer = admission == Admission.CALLOUT ? callerBearer() : null;
                for (int i = 0; i < callers; i++) {
                    opened.add(admission == Admission.CALLOUT ? viaCallout("caller", bearer) : statically("caller", admission, stem, false));
                }
                return new Endpoint(stem + ".ask", opened);
            } catch (Exception e) {
                new Endpoint(stem, opened).close();
                throw e;
            }
        }

        private Connection viaCallout(String actor, String bearer) throws Exception {
            String nonce = InboxNonce.forPrincipal(Principal.of(OWNER, actor));
            return Nats.connect(base().authHandler(callout.sentinelCreds().authHandler()).token(bearer.toCharArray())
                    .connectionName(nonce).inboxPrefix(InboxNonce.inboxPrefix(nonce)).build());
        }

        /**
         * A connection with a user JWT minted here, signed by the space's signing key: for
         * {@link Admission#STATIC} the permissions the callout derives (SPEC §13.16: the server
         * subscribes the stem and its inbox and publishes replies only; the caller publishes the
         * granted subject and subscribes its inbox), for {@link Admission#UNRESTRICTED} none.
         */
        private Connection statically(String actor, Admission admission, String stem, boolean serving) throws Exception {
            String nonce = InboxNonce.forPrincipal(Principal.of(OWNER, actor));
            String inbox = InboxNonce.inboxPrefix(nonce);
            List<String> tags = List.of("owner:" + OWNER, "actor:" + actor, "principal:" + OWNER + "." + actor);
            String account = signer.accountPublicKey();
            UserClaim claim;
            if (admission == Admission.UNRESTRICTED) {
                claim = UserClaim.of(null, null, account, tags);
            } else if (serving) {
                claim = new UserClaim(Permission.none(), Permission.allow(List.of(stem + ".>", inbox + ".>")),
                        new ResponsePermission(1, 0), null, null, null, -1L, -1L, -1L, null, null, null, account, tags);
            } else {
                claim = UserClaim.of(Permission.allow(List.of(stem + ".ask")), Permission.allow(List.of(inbox + ".>")),
                        account, tags);
            }
            Identity identity = Identity.create();
            Creds creds = new Creds(NatsJwt.encode(ClaimSet.of(identity.id(), OWNER + "-" + actor, claim, Instant.now())
                    .withExp(Instant.now().plus(BearerRequest.MAX_TTL).getEpochSecond()), signer.signing()), identity);
            return Nats.connect(base().authHandler(creds.authHandler()).connectionName(nonce).inboxPrefix(inbox).build());
        }

        private Options.Builder base() {
            return new Options.Builder().server(nats.url()).noReconnect().connectionTimeout(ANSWER)
                    .maxControlLine(ServerConfig.MAX_CONTROL_LINE)
                    .errorListener(new ai.cotal.core.internal.connect.LoggingErrorListener());
        }

        /** The service's serving bearer, exchanged on the loopback face with its actor token (SPEC §13.17). */
        private String servingBearer(EndpointInstance instance) throws Exception {
            ObjectMapper json = new ObjectMapper();
            String capability = json.readTree(stateDir.resolve(TokenExchange.DISCOVERY_FILE).toFile()).path("capability")
                    .asText();
            String body = "{\"owner\":\"" + OWNER + "\",\"actor\":\"benchsvc\",\"actorToken\":\"" + SERVICE_TOKEN
                    + "\",\"view\":\"" + EndpointInstance.SERVING_VIEW + "\",\"endpoint\":\"" + instance.endpoint()
                    + "\",\"instanceId\":\"" + instance.instanceId() + "\"}";
            HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(exchange.loopbackUrl() + "/exchange")).header("Content-Type", "application/json")
                    .header("Authorization", "Bearer " + capability).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() != 200) {
                throw new IllegalStateException("the exchange answered " + answer.statusCode() + ": " + answer.body());
            }
            return json.readTree(answer.body()).path("token").asText();
        }

        /** A plain bearer of the granted caller: its connect gets the grant's subject. */
        private String callerBearer() {
            ActorRow row = plane.ledger().find(Principal.of(OWNER, "caller")).orElseThrow();
            CredentialId credential = plane.credentials().mint(Principal.of(OWNER, "caller"), row.lifecycleUid()).id();
            return plane.bearers().issue(BearerRequest.member(Principal.of(OWNER, "caller"), List.of("chat"), row.lifecycleUid(),
                    credential, BearerRequest.MAX_TTL));
        }
    }

    /** One path's open connections: the answering server first, then the callers. */
    private record Endpoint(String subject, List<Connection> connections) implements AutoCloseable {
        /** {@code requests} request/reply round trips split across {@code threads} callers. */
        Concurrent.Result run(int threads, int requests) throws Exception {
            return Concurrent.run(threads, requests / threads, (t, i) -> {
                Message reply = connections.get(1 + t).request(subject, PAYLOAD, ANSWER);
                if (reply == null) {
                    throw new IllegalStateException("no reply within " + ANSWER);
                }
            });
        }

        @Override
        public void close() throws InterruptedException {
            for (Connection connection : connections) {
                connection.close();
            }
        }
    }
}
