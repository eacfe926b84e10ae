package ai.cotal.auth.bench;

import ai.cotal.auth.internal.plane.AuthorityPlaneImpl;
import ai.cotal.auth.ActorRow;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.Grant;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.InboxNonce;
import ai.cotal.auth.internal.callout.AuthCallout;
import ai.cotal.auth.internal.callout.CalloutOptions;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.Principal;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.stores.StoreReplicas;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.BackendChoice;
import ai.cotal.testbroker.ClusterMember;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsCluster;
import io.nats.client.Options;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * Scenario (issue #23): what a cluster costs the callout. Connects per second through the auth
 * callout spread round-robin over a three-member cluster (one callout responder per member, one
 * queue group; the authority stores at 3 replicas), against static user-JWT connects spread the
 * same way in the same run; then the same two figures on one server. Each connect is followed by a
 * close. Prints the rates, the ratio to each floor, and the cluster's callout rate as a share of
 * the single server's.
 */
public final class ClusterCalloutScenario {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private ClusterCalloutScenario() {
    }

    public static void main(String[] args) throws Exception {
        int perThread = args.length > 0 ? Integer.parseInt(args[0]) : 150;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        Clock clock = Clock.systemUTC();
        SpaceAuth auth = SpaceAuth.create("alpha", clock);
        CalloutAuth callout = CalloutAuth.create("alpha", auth.broker(), auth.account().accountPublicKey(), clock);
        List<String> rows = new ArrayList<>();
        Concurrent.Result clusterCallout;
        try (NatsCluster cluster = NatsCluster.start(BackendChoice.detect(), 3, m -> member(auth, callout, m))) {
            cluster.awaitMetaLeader(WAIT);
            Measured m = measure(auth, callout, List.of(cluster.urls()), StoreReplicas.of(3), perThread, threads);
            clusterCallout = m.callout();
            rows.add(m.floor().row("cluster of 3: static user JWT (floor)", m.floor()));
            rows.add(m.callout().row("cluster of 3: auth callout, 3 responders", m.floor()));
        }
        try (NatsBroker single = BenchSpace.broker(auth, callout.jwt())) {
            Measured m = measure(auth, callout, List.of(single.url()), StoreReplicas.one(), perThread, threads);
            rows.add(m.floor().row("one server: static user JWT (floor)", m.floor()));
            rows.add(m.callout().row("one server: auth callout, 1 responder", m.floor()));
            System.out.println("\n| path (" + threads + " threads, connect + close) | connects/s | p50 ms | p99 ms"
                    + " | ratio to its floor |");
            System.out.println("|---|---|---|---|---|");
            rows.forEach(System.out::println);
            System.out.printf("%ncluster callout connects/s as a share of one server's: %.2fx%n",
                    clusterCallout.rate() / m.callout().rate());
        }
    }

    private record Measured(Concurrent.Result floor, Concurrent.Result callout) {
    }

    /** One plane on the first url, one responder per url, clients round-robin over the urls. */
    private static Measured measure(SpaceAuth auth, CalloutAuth callout, List<String> urls, StoreReplicas replicas,
            int perThread, int threads)
            throws Exception {
        InMemorySecretStore store = BenchSpace.store(auth, callout);
        List<AuthCallout> responders = new ArrayList<>();
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(AuthPlaneOptions.builder().server(urls.get(0))
                .space("alpha").stateDir(Files.createTempDirectory("cluster-callout")).secretStore(store)
                .signer(auth.strip()).storeReplicas(replicas).build())) {
            for (String url : urls) {
                responders.add(AuthCallout.start(CalloutOptions.builder().server(url).callout(callout)
                        .plane(((AuthorityPlaneImpl) plane).calloutAuthority()).signer(auth.strip()).build()));
            }
            String owner = "u_abcdefghijklmnopqrstuvwxyz";
            ActorRow row = plane.ledger().grantActor(Principal.of(owner, "bench"), Grant.of(List.of("chat"),
                    List.of("general"), List.of("general")));
            CredentialId credential = plane.credentials().mint(Principal.of(owner, "bench"), row.lifecycleUid()).id();
            String bearer = plane.bearers().issue(BearerRequest.member(Principal.of(owner, "bench"), List.of("chat"),
                    row.lifecycleUid(), credential, Duration.ofMinutes(15)));
            Creds staticCreds = Creds.mint(auth, Identity.create(), CredentialProfile.OBSERVER, MintOptions.defaults());
            AtomicLong nonces = new AtomicLong();
            IntFunction<Options> calloutConnect = i -> {
                String nonce = InboxNonce.of(Principal.of(owner, "bench"), "bench-" + nonces.incrementAndGet() + "-x");
                return base(urls.get(i % urls.size())).authHandler(callout.sentinelCreds().authHandler())
                        .token(bearer.toCharArray()).connectionName(nonce).inboxPrefix(InboxNonce.inboxPrefix(nonce))
                        .build();
            };
            IntFunction<Options> staticConnect = i -> base(urls.get(i % urls.size()))
                    .authHandler(staticCreds.authHandler()).inboxPrefix(staticCreds.inboxPrefix()).build();
            Concurrent.run(threads, 20, (t, i) -> CalloutScenario.connectOnly(staticConnect.apply(t + i)));
            Concurrent.run(threads, 20, (t, i) -> CalloutScenario.connectOnly(calloutConnect.apply(t + i)));
            Concurrent.Result floor = Concurrent.run(threads, perThread,
                    (t, i) -> CalloutScenario.connectOnly(staticConnect.apply(t + i)));
            Concurrent.Result measured = Concurrent.run(threads, perThread,
                    (t, i) -> CalloutScenario.connectOnly(calloutConnect.apply(t + i)));
            return new Measured(floor, measured);
        } finally {
            for (AuthCallout responder : responders) {
                responder.close();
            }
        }
    }

    private static String member(SpaceAuth auth, CalloutAuth callout, ClusterMember m) {
        return ServerConfig.render(auth.broker(), List.of(auth.account()), ServerConfigOptions.builder()
                .transport(Transport.plaintext()).storeDir(m.storeDir())
                .resolver(ai.cotal.auth.PlaneFixture.fullResolver(m))
                .extraAccounts(List.of(callout.jwt())).cluster(ai.cotal.auth.PlaneFixture.cluster(m)).build());
    }

    private static Options.Builder base(String url) {
        return new Options.Builder().server(url).noReconnect().connectionTimeout(Duration.ofSeconds(10))
                .maxControlLine(ServerConfig.MAX_CONTROL_LINE)
                .errorListener(new ai.cotal.core.internal.connect.LoggingErrorListener());
    }
}
