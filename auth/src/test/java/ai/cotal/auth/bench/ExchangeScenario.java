package ai.cotal.auth.bench;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.Grant;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.IdpPin;
import ai.cotal.auth.exchange.ExchangeOptions;
import ai.cotal.auth.exchange.TokenExchange;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.oidc.OidcTestProvider;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * Scenario: agent token exchanges over HTTP on the loopback face, one client thread. Floors, in
 * the same run: {@code GET /health} on the same face (the HTTP round trip alone) and the plane
 * work an exchange does, in process (a credential row and a bearer). After a warm-up the three
 * run in rounds, their order reversed every other round; the exchange's ratio to the HTTP floor
 * is also printed round by round (each against its own round's floor). Then the human arm with an
 * EdDSA stock pin and with an RS256 oidc pin, and their ratio. The faces run on Jetty,
 * which sets TCP_NODELAY on every accepted connection.
 */
public final class ExchangeScenario {
    private static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";
    /** Measured rounds of the three agent paths; each round's ratio is against its own floor. */
    private static final int ROUNDS = 5;

    private ExchangeScenario() {
    }

    public static void main(String[] args) throws Exception {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        Clock clock = Clock.systemUTC();
        SpaceAuth auth = SpaceAuth.create("alpha", clock);
        InMemorySecretStore store = BenchSpace.store(auth);
        Path stateDir = Files.createTempDirectory("exchange-scenario");
        HttpClient http = HttpClient.newHttpClient();
        try (NatsBroker nats = BenchSpace.broker(auth);
             AuthAuthorityPlane plane = AuthAuthorityPlane.open(BenchSpace.unbudgeted(AuthPlaneOptions.builder()
                     .server(nats.url()).space("alpha").stateDir(stateDir).secretStore(store).signer(auth.strip())
                     .clock(clock)).build());
             TokenExchange exchange = TokenExchange.start(ExchangeOptions.builder().plane(plane).stateDir(stateDir)
                     .build())) {
            ActorRow row = plane.ledger().grantManagedActor(Principal.of(OWNER, "agent1"), Grant.of(List.of(), List.of(),
                    List.of()), HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest("agent-secret"
                            .getBytes(StandardCharsets.UTF_8))), new LifecycleUid("abcdefghijklmnopqrstuvwxyz"));
            String capability = new ObjectMapper().readTree(Files.readString(stateDir.resolve(TokenExchange.DISCOVERY_FILE)))
                    .path("capability").asText();
            HttpRequest health = HttpRequest.newBuilder(URI.create(exchange.loopbackUrl() + "/health")).GET().build();
            HttpRequest post = HttpRequest.newBuilder(URI.create(exchange.loopbackUrl() + "/exchange"))
                    .header("Content-Type", "application/json").header("Authorization", "Bearer " + capability)
                    .POST(HttpRequest.BodyPublishers.ofString("{\"owner\":\"" + OWNER + "\",\"actor\":\"agent1\","
                            + "\"actorToken\":\"agent-secret\"}")).build();
            Runnable inProcess = () -> {
                CredentialId credential = plane.credentials().mint(Principal.of(OWNER, "agent1"), row.lifecycleUid()).id();
                plane.bearers().issue(new BearerRequest.Member(Principal.of(OWNER, "agent1"), row.scope(), row.lifecycleUid(),
                        credential, Duration.ofMinutes(5), row.parent()));
            };
            for (int i = 0; i < Math.max(500, calls); i++) { // warm-up of all three paths
                send(http, health);
                send(http, post);
                inProcess.run();
            }
            Runnable[] paths = {() -> send(http, health), inProcess, () -> send(http, post)};
            long[][][] rounds = new long[ROUNDS][][];
            double[] ratios = new double[ROUNDS];
            for (int r = 0; r < ROUNDS; r++) { // the order reversed every other round
                long[][] round = new long[3][];
                for (int k = 0; k < 3; k++) {
                    int path = r % 2 == 0 ? k : 2 - k;
                    round[path] = time(calls, paths[path]);
                }
                rounds[r] = round;
                ratios[r] = rate(round[2]) / rate(round[0]);
            }
            long[] floorHttp = joined(rounds, 0);
            long[] floorWork = joined(rounds, 1);
            long[] exchanges = joined(rounds, 2);
            System.out.printf("%n%d rounds of %d calls each, one thread%n", ROUNDS, calls);
            System.out.println("\n| path | per s | p50 ms | p99 ms | ratio to the HTTP floor | ratio to the work floor |");
            System.out.println("|---|---|---|---|---|---|");
            row(" `GET /health` (HTTP floor)", floorHttp, floorHttp, floorWork);
            row(" credential row + bearer in process (work floor)", floorWork, floorHttp, floorWork);
            row(" `POST /exchange`, agent arm", exchanges, floorHttp, floorWork);
            double[] sorted = ratios.clone();
            Arrays.sort(sorted);
            System.out.printf("%n`POST /exchange` agent arm / `GET /health`, round by round: median %.2fx [%.2fx-%.2fx]%n",
                    sorted[ROUNDS / 2], sorted[0], sorted[ROUNDS - 1]);
            humanArms(calls, http, plane, stateDir, capability, exchange.loopbackUrl(), floorHttp, floorWork);
        }
    }

    /**
     * The human arm with the EdDSA stock pin, then with an RS256 oidc pin (issue #22: the oidc
     * path >= 0.8x of the stock one), against one test-side provider on loopback.
     */
    private static void humanArms(int calls, HttpClient http, AuthAuthorityPlane plane, Path stateDir, String capability,
            String url, long[] floorHttp, long[] floorWork) throws Exception {
        try (OidcTestProvider idp = new OidcTestProvider()) {
            IdpPin stock = IdpPin.pin(stateDir, idp.stockUrl());
            long[] eddsa = humanArm(calls, http, plane, stock, idp.stockToken("alice"), capability, url);
            Files.delete(stateDir.resolve("idp.json")); // the bench swaps the pin; a service refuses re-pinning
            IdpPin oidc = IdpPin.pinOidc(stateDir, idp.issuer(), OidcTestProvider.CLIENT_ID, List.of("RS256"));
            long[] rs256 = humanArm(calls, http, plane, oidc, idp.rs256("alice"), capability, url);
            row(" `POST /exchange`, human arm, EdDSA stock pin", eddsa, floorHttp, floorWork);
            row(" `POST /exchange`, human arm, RS256 oidc pin", rs256, floorHttp, floorWork);
            System.out.printf("%nRS256 oidc / EdDSA stock: %.2fx (issue #22 wants >= 0.8x)%n", rate(rs256) / rate(eddsa));
        }
    }

    private static long[] humanArm(int calls, HttpClient http, AuthAuthorityPlane plane, IdpPin pin, String idpToken,
            String capability, String url) {
        plane.ledger().grantActor(Principal.of(plane.deriveOwner(pin.issuer(), "alice").value(), "laptop"), Grant.of(List.of(),
                List.of(), List.of()));
        HttpRequest post = HttpRequest.newBuilder(URI.create(url + "/exchange")).header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + capability).POST(HttpRequest.BodyPublishers.ofString(
                        "{\"idpToken\":\"" + idpToken + "\",\"actor\":\"laptop\"}")).build();
        for (int i = 0; i < Math.max(50, calls / 10); i++) {
            send(http, post);
        }
        return time(calls, () -> send(http, post));
    }

    /** Every round's timings of one path, in one array. */
    private static long[] joined(long[][][] rounds, int path) {
        return Arrays.stream(rounds).flatMapToLong(round -> Arrays.stream(round[path])).toArray();
    }

    private static void send(HttpClient http, HttpRequest request) {
        try {
            HttpResponse<String> answer = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() != 200) {
                throw new IllegalStateException("status " + answer.statusCode() + ": " + answer.body());
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static long[] time(int calls, Runnable call) {
        long[] nanos = new long[calls];
        for (int i = 0; i < calls; i++) {
            long start = System.nanoTime();
            call.run();
            nanos[i] = System.nanoTime() - start;
        }
        return nanos;
    }

    private static void row(String name, long[] nanos, long[] httpFloor, long[] workFloor) {
        System.out.printf("|%s | %.0f | %.2f | %.2f | %.2fx | %.2fx |%n", name, rate(nanos), pct(nanos, 50), pct(nanos, 99),
                rate(nanos) / rate(httpFloor), rate(nanos) / rate(workFloor));
    }

    private static double rate(long[] nanos) {
        return nanos.length / (Arrays.stream(nanos).sum() / 1e9);
    }

    private static double pct(long[] nanos, int p) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, sorted.length * p / 100)] / 1e6;
    }
}
