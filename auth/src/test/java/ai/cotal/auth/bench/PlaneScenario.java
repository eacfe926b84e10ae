package ai.cotal.auth.bench;

import ai.cotal.auth.ActorLedger;
import ai.cotal.auth.ActorRow;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.ConnectAttempt;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
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
 * Floors, in the same run: opening and closing five plain connections (the plane opens five plus
 * the claim), and one KV read of a credential row (authorizeConnect does a ledger file read plus
 * that KV read).
 */
public final class PlaneScenario {
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
                ActorRow row = plane.ledger().grantActor("u_ownerownerownerownerowners", "bench", ActorLedger.Grant.of(List.of("chat"), List.of(),
                        List.of()));
                String credential = plane.credentials().mint("u_ownerownerownerownerowners", "bench", row.lifecycleUid());
                ConnectAttempt attempt = new ConnectAttempt("u_ownerownerownerownerowners", "bench", List.of("chat"), row.lifecycleUid(), credential);
                try (Connection admin = NatsConnector.builder().server(nats.url()).creds(adminCreds(auth)).label("admin")
                        .build().connect()) {
                    KeyValue kv = admin.keyValue("cotal_auth_alpha");
                    for (int i = 0; i < 500; i++) {
                        plane.credentials().authorize(attempt);
                        kv.get("cred." + credential);
                    }
                    long start = System.nanoTime();
                    for (int i = 0; i < calls; i++) {
                        kv.get("cred." + credential);
                    }
                    double floorRate = calls / ((System.nanoTime() - start) / 1e9);
                    start = System.nanoTime();
                    for (int i = 0; i < calls; i++) {
                        plane.credentials().authorize(attempt);
                    }
                    double rate = calls / ((System.nanoTime() - start) / 1e9);
                    System.out.println("\n| measure | value | floor (same run) | ratio |");
                    System.out.println("|---|---|---|---|");
                    System.out.printf("| plane open, p50 | %.1f ms | 5 plain connects + closes: %.1f ms | %.2fx |%n",
                            p50(open), p50(floorOpen), p50(open) / p50(floorOpen));
                    System.out.printf("| plane close, p50 | %.1f ms | | |%n", p50(close));
                    System.out.printf("| authorizeConnect | %.0f /s | one credential-row KV read: %.0f /s | %.2fx |%n",
                            rate, floorRate, rate / floorRate);
                }
            }
        }
    }

    private static Creds adminCreds(SpaceAuth auth) {
        Identity identity = Identity.create();
        String jwt = ai.cotal.core.jwt.NatsJwt.encode(ai.cotal.core.jwt.ClaimSet.of(identity.id(), "bench-admin",
                ai.cotal.core.jwt.UserClaim.of(null, null, auth.space().accountPublicKey(), null), java.time.Instant.now()),
                auth.space().signing());
        return new Creds(jwt, identity);
    }

    private static double p50(long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2] / 1e6;
    }
}
