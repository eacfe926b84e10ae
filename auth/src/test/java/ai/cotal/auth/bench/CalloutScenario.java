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
import ai.cotal.auth.micrometer.MicrometerSink;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.Principal;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.NatsBroker;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * Scenario: connects per second through the auth callout (sentinel credential + bearer, sealed
 * request, plane authorization, minted user) with 8 client threads, against static-JWT connects
 * per second with 8 threads on the same broker in the same run. Each connect is followed by a
 * close. Prints rates, the ratio and p50/p99 connect latency.
 *
 * <p>{@code scripts/bench CalloutScenario metrics [perThread] [rounds]}: the callout path with a
 * Micrometer registry attached (plane and responder, SPEC §13.21) against the same path without
 * one, in the same run: the plane and responder are opened afresh for each measurement, the two
 * variants alternate over {@code rounds} rounds (default 7), and the median rate of each is compared.
 */
public final class CalloutScenario {
    private static int THREADS = 8;

    private CalloutScenario() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("metrics")) {
            metered(args.length > 1 ? Integer.parseInt(args[1]) : 100, args.length > 2 ? Integer.parseInt(args[2]) : 7);
            return;
        }
        int perThread = args.length > 0 ? Integer.parseInt(args[0]) : 150;
        THREADS = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        Clock clock = Clock.systemUTC();
        SpaceAuth auth = SpaceAuth.create("alpha", clock);
        CalloutAuth callout = CalloutAuth.create("alpha", auth.broker(), auth.account().accountPublicKey(), clock);
        InMemorySecretStore store = BenchSpace.store(auth, callout);
        try (NatsBroker nats = BenchSpace.broker(auth, callout.jwt());
             AuthAuthorityPlane plane = AuthAuthorityPlane.open(AuthPlaneOptions.builder().server(nats.url()).space("alpha")
                     .stateDir(Files.createTempDirectory("callout-scenario")).secretStore(store).signer(auth.strip()).build());
             AuthCallout responder = AuthCallout.start(CalloutOptions.builder().server(nats.url()).callout(callout)
                     .plane(((AuthorityPlaneImpl) plane).calloutAuthority()).signer(auth.strip()).build())) {
            String owner = "u_abcdefghijklmnopqrstuvwxyz";
            ActorRow row = plane.ledger().grantActor(Principal.of(owner, "bench"), Grant.of(List.of("chat"), List.of("general"),
                    List.of("general")));
            CredentialId credential = plane.credentials().mint(Principal.of(owner, "bench"), row.lifecycleUid()).id();
            String bearer = plane.bearers().issue(BearerRequest.member(Principal.of(owner, "bench"), List.of("chat"), row.lifecycleUid(),
                    credential, Duration.ofMinutes(15)));
            Creds staticCreds = Creds.mint(auth, Identity.create(), CredentialProfile.OBSERVER, MintOptions.defaults());
            AtomicLong nonces = new AtomicLong();
            IntFunction<Options> calloutConnect = i -> {
                String nonce = InboxNonce.of(Principal.of(owner, "bench"), "bench-" + nonces.incrementAndGet() + "-x");
                return base(nats).authHandler(callout.sentinelCreds().authHandler()).token(bearer.toCharArray())
                        .connectionName(nonce).inboxPrefix(InboxNonce.inboxPrefix(nonce)).build();
            };
            IntFunction<Options> staticConnect = i -> base(nats).authHandler(staticCreds.authHandler())
                    .inboxPrefix(staticCreds.inboxPrefix()).build();
            Concurrent.run(THREADS, 20, (t, i) -> connectOnly(staticConnect.apply(i)));
            Concurrent.run(THREADS, 20, (t, i) -> connectOnly(calloutConnect.apply(i)));
            Concurrent.Result floor = Concurrent.run(THREADS, perThread, (t, i) -> connectOnly(staticConnect.apply(i)));
            Concurrent.Result measured = Concurrent.run(THREADS, perThread, (t, i) -> connectOnly(calloutConnect.apply(i)));
            System.out.println("\n| path (" + THREADS + " threads) | connects/s | p50 ms | p99 ms | ratio to floor |");
            System.out.println("|---|---|---|---|---|");
            System.out.println(floor.row("static user JWT (floor)", floor));
            System.out.println(measured.row("auth callout (sentinel + bearer)", floor));
        }
    }

    /** The metrics mode: the callout path with and without a registry, alternating, medians compared. */
    private static void metered(int perThread, int rounds) throws Exception {
        Clock clock = Clock.systemUTC();
        SpaceAuth auth = SpaceAuth.create("alpha", clock);
        CalloutAuth callout = CalloutAuth.create("alpha", auth.broker(), auth.account().accountPublicKey(), clock);
        InMemorySecretStore store = BenchSpace.store(auth, callout);
        java.nio.file.Path stateDir = Files.createTempDirectory("callout-metrics-scenario");
        String owner = "u_abcdefghijklmnopqrstuvwxyz";
        List<Concurrent.Result> bare = new java.util.ArrayList<>();
        List<Concurrent.Result> metered = new java.util.ArrayList<>();
        io.micrometer.core.instrument.simple.SimpleMeterRegistry registry
                = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        try (NatsBroker nats = BenchSpace.broker(auth, callout.jwt())) {
            for (int round = 0; round <= rounds; round++) { // round 0 warms both variants up and is not kept
                for (boolean withRegistry : new boolean[] {round % 2 == 0, round % 2 != 0}) {
                    AuthPlaneOptions.Builder options = AuthPlaneOptions.builder().server(nats.url()).space("alpha")
                            .stateDir(stateDir).secretStore(store).signer(auth.strip());
                    CalloutOptions.Builder responderOptions = CalloutOptions.builder().server(nats.url()).callout(callout)
                            .signer(auth.strip());
                    if (withRegistry) {
                        options.meterSink(MicrometerSink.of(registry));
                        responderOptions.meterSink(MicrometerSink.of(registry));
                    }
                    try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(options.build());
                         AuthCallout responder = AuthCallout.start(responderOptions.plane(((AuthorityPlaneImpl) plane).calloutAuthority()).build())) {
                        ActorRow row = plane.ledger().grantActor(Principal.of(owner, "bench"), Grant.of(List.of("chat"),
                                List.of("general"), List.of("general")));
                        CredentialId credential = plane.credentials().mint(Principal.of(owner, "bench"), row.lifecycleUid()).id();
                        String bearer = plane.bearers().issue(BearerRequest.member(Principal.of(owner, "bench"), List.of("chat"),
                                row.lifecycleUid(), credential, Duration.ofMinutes(15)));
                        AtomicLong nonces = new AtomicLong();
                        Concurrent.Result result = Concurrent.run(THREADS, perThread, (t, i) -> {
                            String nonce = InboxNonce.of(Principal.of(owner, "bench"), "bench-" + nonces.incrementAndGet() + "-x");
                            connectOnly(base(nats).authHandler(callout.sentinelCreds().authHandler())
                                    .token(bearer.toCharArray()).connectionName(nonce)
                                    .inboxPrefix(InboxNonce.inboxPrefix(nonce)).build());
                        });
                        if (round > 0) {
                            (withRegistry ? metered : bare).add(result);
                            System.out.printf("round %d %-18s %.0f connects/s%n", round, withRegistry ? "with registry"
                                    : "without registry", result.rate());
                        }
                    }
                }
            }
        }
        Concurrent.Result floor = Concurrent.median(bare);
        Concurrent.Result measured = Concurrent.median(metered);
        System.out.println("\n| callout path (" + THREADS + " threads, median of " + rounds + " rounds) | connects/s | p50 ms"
                + " | p99 ms | ratio to no registry |");
        System.out.println("|---|---|---|---|---|");
        System.out.println(floor.row("no registry", floor));
        System.out.println(measured.row("SimpleMeterRegistry attached", floor));
        double admitted = registry.get("cotal.auth.callout.decisions").tags("outcome", "admitted").counter().count();
        System.out.printf("the registry counted %.0f admitted connects (%d made with it, warm-up included)%n", admitted,
                (long) (rounds + 1) * THREADS * perThread);
    }

    private static Options.Builder base(NatsBroker nats) {
        return new Options.Builder().server(nats.url()).noReconnect().connectionTimeout(Duration.ofSeconds(10))
                .maxControlLine(ServerConfig.MAX_CONTROL_LINE).errorListener(new ai.cotal.core.internal.connect.LoggingErrorListener());
    }

    /** Connects and closes; the close is inside each measured latency. */
    static void connectOnly(Options options) throws Exception {
        Connection connection = Nats.connect(options);
        connection.close();
    }
}
