package ai.cotal.auth.bench;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.ConnectAttempt;
import ai.cotal.auth.Grant;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.Principal;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.NatsBroker;
import io.nats.client.Connection;
import io.nats.client.KeyValue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;

/**
 * Scenario: the authority plane's open and close times, and authorizeConnect calls per second.
 * Floors, in the same run: opening and closing five plain connections, and one KV read of a
 * credential row. The check sends two leader reads together (the lifecycle head and the
 * credential row) and reads the ledger file meanwhile; the two reads alone, sent the same way,
 * are printed beside it as what the broker's part costs. The checks and the floor run in rounds
 * after a warm-up, their order swapped every round; the ratio is the median of the rounds'.
 */
public final class PlaneScenario {
    private static final String OWNER = "u_ownerownerownerownerowners";
    /** Calls of each path before anything is measured. */
    private static final int WARM_UP = 10_000;
    /** Measured rounds of each path, the order swapped every round; each ratio is its own round's. */
    private static final int ROUNDS = 5;

    private PlaneScenario() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        int calls = args.length > 1 ? Integer.parseInt(args[1]) : 5000;
        Clock clock = Clock.systemUTC();
        SpaceAuth auth = SpaceAuth.create("alpha", clock);
        InMemorySecretStore store = BenchSpace.store(auth);
        Path stateDir = Files.createTempDirectory("plane-scenario");
        try (NatsBroker nats = BenchSpace.broker(auth)) {
            AuthPlaneOptions options = BenchSpace.unbudgeted(AuthPlaneOptions.builder().server(nats.url()).space("alpha")
                    .stateDir(stateDir).secretStore(store).signer(auth.strip()).clock(clock)).build();
            Creds plain = Creds.mint(auth, Identity.create(), CredentialProfile.OBSERVER, MintOptions.defaults());
            long[] floorOpen = new long[rounds];
            long[] open = new long[rounds];
            long[] close = new long[rounds];
            for (int i = 0; i < rounds; i++) {
                long start = System.nanoTime();
                Connection[] five = new Connection[5];
                for (int c = 0; c < 5; c++) {
                    five[c] = NatsConnector.builder().server(nats.url()).creds(plain).label("floor").build().connect();
                }
                for (Connection c : five) {
                    c.close();
                }
                floorOpen[i] = System.nanoTime() - start;
                start = System.nanoTime();
                AuthAuthorityPlane plane = AuthAuthorityPlane.open(options);
                open[i] = System.nanoTime() - start;
                start = System.nanoTime();
                plane.close();
                close[i] = System.nanoTime() - start;
            }
            try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(options);
                 Connection reader = NatsConnector.builder().server(nats.url()).creds(plain).label("floor").build().connect()) {
                ActorRow row = plane.ledger().grantActor(Principal.of(OWNER, "bench"), Grant.of(List.of("chat"), List.of(),
                        List.of()));
                CredentialId credential = plane.credentials().mint(Principal.of(OWNER, "bench"), row.lifecycleUid()).id();
                ConnectAttempt attempt = new ConnectAttempt(Principal.of(OWNER, "bench"), List.of("chat"), row.lifecycleUid(), credential);
                try (Connection admin = NatsConnector.builder().server(nats.url()).creds(adminCreds(auth)).label("admin")
                        .build().connect()) {
                    KeyValue kv = admin.keyValue("cotal_auth_alpha");
                    Runnable floor = () -> read(kv, credential.value());
                    Runnable pair = twoReadsAtOnce(admin, credential.value());
                    Runnable check = () -> plane.credentials().authorize(attempt);
                    for (int i = 0; i < WARM_UP; i++) { // until the JIT has compiled all three paths
                        floor.run();
                        pair.run();
                        check.run();
                    }
                    double[] floorRates = new double[ROUNDS];
                    double[] pairRates = new double[ROUNDS];
                    double[] rates = new double[ROUNDS];
                    double[] ratios = new double[ROUNDS];
                    for (int r = 0; r < ROUNDS; r++) { // the order swapped every round
                        if (r % 2 == 0) {
                            floorRates[r] = rate(calls, floor);
                            pairRates[r] = rate(calls, pair);
                            rates[r] = rate(calls, check);
                        } else {
                            rates[r] = rate(calls, check);
                            pairRates[r] = rate(calls, pair);
                            floorRates[r] = rate(calls, floor);
                        }
                        ratios[r] = rates[r] / floorRates[r];
                    }
                    System.out.println("\n| measure | value | floor (same run) | ratio |");
                    System.out.println("|---|---|---|---|");
                    System.out.printf("| plane open, p50 | %.1f ms | 5 plain connects + closes: %.1f ms | %.2fx |%n",
                            p50(open), p50(floorOpen), p50(open) / p50(floorOpen));
                    System.out.printf("| plane close, p50 | %.1f ms | | |%n", p50(close));
                    System.out.printf("| authorizeConnect, median of %d rounds | %.0f /s | one credential-row KV read: %.0f /s"
                            + " | %.2fx [%.2fx-%.2fx] |%n", ROUNDS, median(rates), median(floorRates), median(ratios),
                            min(ratios), max(ratios));
                    System.out.printf("| two leader reads sent together (the check's broker work) | %.0f /s | | %.2fx |%n",
                            median(pairRates), median(pairRates) / median(floorRates));
                }
            }
        }
    }

    private static Creds adminCreds(SpaceAuth auth) {
        Identity identity = Identity.create();
        String jwt = ai.cotal.core.jwt.NatsJwt.encode(ai.cotal.core.jwt.ClaimSet.of(identity.id(), "bench-admin",
                ai.cotal.core.jwt.UserClaim.of(null, null, auth.account().accountPublicKey(), null), java.time.Instant.now()),
                auth.account().signing());
        return new Creds(jwt, identity);
    }

    /** One credential-row read through jnats' KV handle, the floor. */
    private static void read(KeyValue kv, String credential) {
        try {
            kv.get("cred." + credential);
        } catch (java.io.IOException | io.nats.client.JetStreamApiException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The head's and the row's {@code STREAM.MSG.GET} sent together and both awaited, as the check sends them. */
    private static Runnable twoReadsAtOnce(Connection connection, String credential) {
        String subject = "$JS.API.STREAM.MSG.GET.KV_cotal_auth_alpha";
        byte[] row = ("{\"last_by_subj\":\"$KV.cotal_auth_alpha.cred." + credential + "\"}").getBytes(
                java.nio.charset.StandardCharsets.UTF_8);
        byte[] head = ("{\"last_by_subj\":\"$KV.cotal_auth_alpha." + "lifecycle.head." + OWNER + ".bench" + "\"}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        java.time.Duration timeout = java.time.Duration.ofSeconds(2);
        return () -> {
            java.util.concurrent.CompletableFuture<io.nats.client.Message> first = connection.requestWithTimeout(subject, head,
                    timeout);
            java.util.concurrent.CompletableFuture<io.nats.client.Message> second = connection.requestWithTimeout(subject, row,
                    timeout);
            first.join();
            second.join();
        };
    }

    private static double rate(int calls, Runnable call) {
        long start = System.nanoTime();
        for (int i = 0; i < calls; i++) {
            call.run();
        }
        return calls / ((System.nanoTime() - start) / 1e9);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static double min(double[] values) {
        return Arrays.stream(values).min().orElseThrow();
    }

    private static double max(double[] values) {
        return Arrays.stream(values).max().orElseThrow();
    }

    private static double p50(long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2] / 1e6;
    }
}
