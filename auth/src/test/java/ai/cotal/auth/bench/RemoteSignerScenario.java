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
import ai.cotal.core.id.Principal;
import ai.cotal.core.keys.AccountSigner;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.core.trust.SpaceSigner;
import ai.cotal.signer.SignerServer;
import ai.cotal.signer.SignerServerOptions;
import ai.cotal.signer.UnixSocketAccountSigner;
import ai.cotal.testbroker.NatsBroker;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Scenario (issue #24): connects per second through the auth callout when the data account's key
 * signs in-process versus through the remote signer (a {@link SignerServer} on its own threads in
 * this JVM: a real Unix socket round trip, the policy check and an fsynced audit record per
 * signature). One plane and one callout serve both arms: their signer switches between the two,
 * in interleaved repetitions (in-process, remote, ...), 8 client threads each. Prints the median
 * repetition of each arm and the ratio.
 */
public final class RemoteSignerScenario {
    private RemoteSignerScenario() {
    }

    /** The plane's signer: one of two, switched between repetitions. */
    private static final class Switch implements AccountSigner {
        private final AccountSigner local;
        private final AccountSigner remote;
        private volatile boolean useRemote;

        Switch(AccountSigner local, AccountSigner remote) {
            this.local = local;
            this.remote = remote;
        }

        @Override
        public String publicKey() {
            return local.publicKey();
        }

        @Override
        public byte[] sign(byte[] input) {
            return (useRemote ? remote : local).sign(input);
        }
    }

    public static void main(String[] args) throws Exception {
        int perThread = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        int repeats = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        Clock clock = Clock.systemUTC();
        SpaceAuth auth = SpaceAuth.create("alpha", clock);
        CalloutAuth callout = CalloutAuth.create("alpha", auth.broker(), auth.account().accountPublicKey(), clock);
        InMemorySecretStore store = BenchSpace.store(auth, callout);
        Path dir = Files.createTempDirectory("remote-signer-scenario");
        SpaceSigner inProcess = auth.strip();
        try (NatsBroker nats = BenchSpace.broker(auth, callout.jwt());
             SignerServer signer = SignerServer.start(SignerServerOptions.builder().signer(inProcess)
                     .socket(dir.resolve("run").resolve("alpha.sock")).audit(dir.resolve("audit.jsonl"))
                     .policy(BenchSpace.unratedSignerPolicy("alpha", inProcess.accountPublicKey())).build());
             UnixSocketAccountSigner remote = UnixSocketAccountSigner.builder().socket(signer.socket())
                     .publicKey(inProcess.signing().publicKey()).build()) {
            Switch signing = new Switch(inProcess.signing(), remote);
            SpaceSigner switched = new SpaceSigner("alpha", inProcess.accountPublicKey(), signing);
            try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(BenchSpace.unbudgeted(AuthPlaneOptions.builder())
                    .server(nats.url()).space("alpha").stateDir(dir.resolve("state")).secretStore(store).signer(switched)
                    .build());
                 AuthCallout responder = AuthCallout.start(CalloutOptions.builder().server(nats.url()).callout(callout)
                         .plane(((AuthorityPlaneImpl) plane).calloutAuthority()).signer(switched).build())) {
                String owner = "u_abcdefghijklmnopqrstuvwxyz";
                ActorRow row = plane.ledger().grantActor(Principal.of(owner, "bench"), Grant.of(List.of("chat"),
                        List.of("general"), List.of("general")));
                String bearer = plane.bearers().issue(BearerRequest.member(Principal.of(owner, "bench"), List.of("chat"),
                        row.lifecycleUid(), plane.credentials().mint(Principal.of(owner, "bench"), row.lifecycleUid()).id(),
                        Duration.ofMinutes(15)));
                AtomicLong nonces = new AtomicLong();
                Concurrent.Task connect = (t, i) -> {
                    String nonce = InboxNonce.of(Principal.of(owner, "bench"), "bench-" + nonces.incrementAndGet() + "-x");
                    Nats.connect(new Options.Builder().server(nats.url()).noReconnect()
                            .connectionTimeout(Duration.ofSeconds(10)).maxControlLine(ServerConfig.MAX_CONTROL_LINE)
                            .authHandler(callout.sentinelCreds().authHandler()).token(bearer.toCharArray())
                            .connectionName(nonce).inboxPrefix(InboxNonce.inboxPrefix(nonce)).build()).close();
                };
                List<Concurrent.Result> local = new ArrayList<>();
                List<Concurrent.Result> far = new ArrayList<>();
                for (boolean arm : new boolean[] {false, true}) { // warm both paths
                    signing.useRemote = arm;
                    Concurrent.run(threads, 20, connect);
                }
                for (int r = 0; r < repeats; r++) {
                    signing.useRemote = false;
                    local.add(Concurrent.run(threads, perThread, connect));
                    signing.useRemote = true;
                    far.add(Concurrent.run(threads, perThread, connect));
                }
                Concurrent.Result floor = Concurrent.median(local);
                Concurrent.Result measured = Concurrent.median(far);
                System.out.println("\n| signer (" + threads + " threads, median of " + repeats
                        + " interleaved repetitions) | connects/s | p50 ms | p99 ms | ratio to in-process |");
                System.out.println("|---|---|---|---|---|");
                System.out.println(floor.row("in-process (`InMemoryAccountSigner`)", floor));
                System.out.println(measured.row("remote (`UnixSocketAccountSigner`, policy + fsynced audit)", floor));
                StringBuilder each = new StringBuilder("per repetition (in-process / remote connects/s):");
                for (int r = 0; r < repeats; r++) {
                    each.append(String.format(" %.0f/%.0f", local.get(r).rate(), far.get(r).rate()));
                }
                System.out.println(each);
            }
        }
    }
}
