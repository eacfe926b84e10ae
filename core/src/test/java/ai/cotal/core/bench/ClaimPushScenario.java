package ai.cotal.core.bench;

import ai.cotal.core.claims.AccountClaims;
import ai.cotal.core.config.AccountResolver;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.testbroker.BackendChoice;
import ai.cotal.testbroker.NatsBroker;
import io.nats.client.Connection;
import io.nats.client.Message;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * Scenario: add N spaces (default 200) to one running full-resolver broker by push. The floor, in
 * the same run, is N bare {@code CLAIMS.UPDATE} requests of other accounts with no checks; the
 * measured path is {@link AccountClaims#push} (verify the chain, look up the held claim, push,
 * collect every expected answer). Prints pushes per second, p50/p99 latency and the broker's
 * resident memory before and after, as a Markdown table.
 */
public final class ClaimPushScenario {
    private ClaimPushScenario() {
    }

    public static void main(String[] args) throws Exception {
        int spaces = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        Clock clock = Clock.systemUTC();
        BrokerAuth broker = BrokerAuth.create("scenario", clock);
        SpaceAccountAuth first = SpaceAccountAuth.create(broker, "space-0", clock);
        List<String> floorClaims = new ArrayList<>();
        List<String> pushClaims = new ArrayList<>();
        for (int i = 1; i <= spaces; i++) {
            floorClaims.add(SpaceAccountAuth.create(broker, "floor-" + i, clock).jwt());
            pushClaims.add(SpaceAccountAuth.create(broker, "space-" + i, clock).jwt());
        }
        Creds systemCreds = Creds.mintSystem(broker, Identity.create(), CredentialProfile.ACCOUNT_CLAIMS, null,
                MintOptions.defaults());
        try (NatsBroker nats = NatsBroker.start(BackendChoice.detect(), b -> ServerConfig.render(broker, List.of(first),
                ServerConfigOptions.builder().transport(Transport.plaintext()).storeDir(b.storeDir())
                        .resolver(AccountResolver.full(b.workDir().resolve("jwts"), 10 * spaces, Duration.ofMinutes(2)))
                        .build()));
             Connection system = NatsConnector.builder().server(nats.url()).creds(systemCreds).label("scenario").build()
                     .connect()) {
            long rssBefore = nats.residentKib();
            long[] floor = new long[spaces];
            for (int i = 0; i < spaces; i++) {
                String jwt = floorClaims.get(i);
                String account = ai.cotal.core.jwt.NatsJwt.decode(jwt).sub();
                long start = System.nanoTime();
                Message reply = system.request("$SYS.REQ.ACCOUNT." + account + ".CLAIMS.UPDATE",
                        jwt.getBytes(StandardCharsets.US_ASCII), Duration.ofSeconds(5));
                floor[i] = System.nanoTime() - start;
                if (reply == null || !new String(reply.getData(), StandardCharsets.UTF_8).contains("jwt updated")) {
                    throw new IllegalStateException("floor push failed");
                }
            }
            long rssMiddle = nats.residentKib();
            AccountClaims claims = new AccountClaims(system, broker, clock);
            long[] pushes = new long[spaces];
            for (int i = 0; i < spaces; i++) {
                long start = System.nanoTime();
                claims.push(pushClaims.get(i), Set.of(nats.serverId()), Duration.ofSeconds(5));
                pushes[i] = System.nanoTime() - start;
            }
            long rssAfter = nats.residentKib();
            System.out.println("\n| path | spaces | pushes/s | p50 ms | p99 ms | ratio to floor (pushes/s) |");
            System.out.println("|---|---|---|---|---|---|");
            double floorRate = rate(floor);
            row("bare CLAIMS.UPDATE request (floor)", floor, floorRate);
            row("AccountClaims.push", pushes, floorRate);
            System.out.printf("%nbroker resident memory: %d KiB before, %d KiB after %d floor accounts, %d KiB after %d"
                    + " more pushed (%d accounts in all)%n", rssBefore, rssMiddle, spaces, rssAfter, spaces, 2 * spaces + 2);
        }
    }

    private static double rate(long[] nanos) {
        return nanos.length / (Arrays.stream(nanos).sum() / 1e9);
    }

    private static void row(String name, long[] nanos, double floorRate) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        double rate = rate(nanos);
        System.out.printf("| %s | %d | %.0f | %.2f | %.2f | %.2fx |%n", name, nanos.length, rate,
                sorted[sorted.length / 2] / 1e6, sorted[(int) Math.ceil(sorted.length * 0.99) - 1] / 1e6, rate / floorRate);
    }
}
