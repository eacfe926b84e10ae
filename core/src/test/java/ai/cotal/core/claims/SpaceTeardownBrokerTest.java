package ai.cotal.core.claims;

import static ai.cotal.core.BrokerClients.connect;
import static ai.cotal.core.BrokerClients.refusedConnect;
import static ai.cotal.core.claims.ClaimsFixture.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.BrokerClients;
import ai.cotal.core.BrokerClients.Client;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.internal.kv.StoreNames;
import ai.cotal.core.jwt.AccountClaim;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.stores.SpaceStores;
import ai.cotal.core.stores.SpaceTeardown;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code SpaceTeardown.tearDown} (SPEC §5.2 "Teardown") on a running full-resolver broker, without the CLI. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class SpaceTeardownBrokerTest {
    private final ClaimsFixture f = new ClaimsFixture();
    /** Every credential the teardown connected with, in order. */
    private final List<Creds> used = new ArrayList<>();
    /** Every claim the teardown gave the caller to store, in order. */
    private final List<String> stored = new ArrayList<>();

    private Function<Creds, Connection> connector(NatsBroker nats) {
        return creds -> {
            used.add(creds);
            return NatsConnector.builder().server(nats.url()).creds(creds).label("teardown").build().connect();
        };
    }

    private static SpaceAuth withClaim(ClaimsFixture f, SpaceAccountAuth space, String jwt) {
        return new SpaceAuth(f.broker, new SpaceAccountAuth(space.space(), space.account(), space.signing(), jwt));
    }

    /** Both spaces pushed and set up, one message in each one's chat stream. */
    private void provision(AccountClaims claims, NatsBroker nats) throws Exception {
        claims.push(f.beta.jwt(), claims.members(WAIT), WAIT);
        for (SpaceAccountAuth space : List.of(f.alpha, f.beta)) {
            try (Client provisioner = connect(nats, f.mint(space, CredentialProfile.PROVISIONER, MintOptions.defaults()))) {
                SpaceStores.setup(provisioner.connection(), space.space());
            }
            try (Client writer = connect(nats, BrokerClients.unrestricted(space))) {
                writer.connection().jetStream().publish("cotal." + space.space() + ".chat.o.a.general",
                        space.space().getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    /** Both spaces provisioned, then alpha retired on the broker: its retired claim. */
    private String provisionAndRetireAlpha(AccountClaims claims, ClusterMembers members, NatsBroker nats)
            throws Exception {
        provision(claims, nats);
        String retired = AccountClaims.retire(f.broker, f.alpha.jwt(), f.clock.instant().getEpochSecond());
        claims.push(retired, members, WAIT);
        return retired;
    }

    /**
     * The broker refuses {@code creds}: a revoked user or a retired account (its error reaches
     * the client, or, when jnats reports only that it could not connect, the broker's log).
     */
    private static void refusedByTheBroker(NatsBroker nats, Creds creds) {
        long mark = nats.log().mark();
        String refusal = refusedConnect(nats, creds).getMessage();
        if (!refusal.contains("Authorization Violation") && !refusal.contains("maximum")) {
            assertTrue(nats.log().await(mark, line -> line.contains("authentication error")
                    || line.contains("maximum account active connections"), WAIT).isPresent(), refusal);
        }
    }

    private static long conn(String jwt) {
        return NatsJwt.decode(jwt, AccountClaim.class).nats().limits().conn();
    }

    @Test
    void aRetiredSpacesStreamsAreDeletedItsSiblingKeepsItsDataItStaysRetiredAndAReplayDeletesNothing(
            NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> f.config(b, 100));
        try (Connection system = f.system(nats)) {
            AccountClaims claims = new AccountClaims(system, f.broker, f.clock);
            ClusterMembers members = claims.members(WAIT);
            provision(claims, nats);
            String heldLive = claims.lookup(f.alpha.accountPublicKey(), WAIT).orElseThrow();

            CotalException live = assertThrows(CotalException.class, () -> SpaceTeardown.tearDown(claims, members,
                    new SpaceAuth(f.broker, f.alpha), connector(nats), stored::add, WAIT));
            assertEquals(ErrorCode.FAILED_PRECONDITION, live.code(), live.getMessage());
            assertTrue(live.getMessage().startsWith("space: 'alpha' is live"), live.getMessage());
            CotalException foreign = assertThrows(CotalException.class, () -> SpaceTeardown.tearDown(claims, members,
                    SpaceAuth.create("alpha", f.clock), connector(nats), stored::add, WAIT));
            assertEquals(ErrorCode.BAD_REQUEST, foreign.code(), foreign.getMessage());
            assertTrue(foreign.getMessage().startsWith("space"), foreign.getMessage());
            String ahead = AccountClaims.retire(f.broker, f.alpha.jwt(), f.clock.instant().getEpochSecond() + 5);
            CotalException early = assertThrows(CotalException.class, () -> SpaceTeardown.tearDown(claims, members,
                    withClaim(f, f.alpha, ahead), connector(nats), stored::add, WAIT));
            assertEquals(ErrorCode.UNAVAILABLE, early.code(), early.getMessage());
            assertTrue(early.getMessage().startsWith("space: its account claim is issued ahead of the clock"),
                    early.getMessage());
            assertEquals(List.of(), used, "a refused teardown connected nothing");
            assertEquals(List.of(), stored, "a refused teardown stored nothing");
            assertEquals(heldLive, claims.lookup(f.alpha.accountPublicKey(), WAIT).orElseThrow(), "nor pushed anything");

            String retired = AccountClaims.retire(f.broker, f.alpha.jwt(), f.clock.instant().getEpochSecond());
            claims.push(retired, members, WAIT);
            SpaceTeardown.Outcome outcome = SpaceTeardown.tearDown(claims, members, withClaim(f, f.alpha, retired),
                    connector(nats), stored::add, WAIT);
            assertEquals(StoreNames.allStreams("alpha"), outcome.deleted(), "every stream of the space went");
            assertEquals(List.of(outcome.retiredJwt()), stored, "the new retirement was given to the caller");
            assertEquals(outcome.retiredJwt(), claims.lookup(f.alpha.accountPublicKey(), WAIT).orElseThrow(),
                    "the broker holds the new retirement: the window is closed");
            assertEquals(0, conn(outcome.retiredJwt()));
            ClaimSet<AccountClaim> after = NatsJwt.decode(outcome.retiredJwt(), AccountClaim.class);
            assertTrue(after.nats().revocations().get("*") >= NatsJwt.decode(used.get(0).jwt()).iat(),
                    "the teardown user is revoked");
            refusedByTheBroker(nats, used.get(0));
            refusedByTheBroker(nats, f.mint(f.alpha, CredentialProfile.OBSERVER, MintOptions.defaults()));
            try (Client beta = connect(nats, f.mint(f.beta, CredentialProfile.PROVISIONER, MintOptions.defaults()))) {
                assertEquals(1, beta.connection().jetStreamManagement().getStreamInfo("CHAT_beta").getStreamState()
                        .getMsgCount(), "the sibling keeps its data");
            }

            SpaceTeardown.Outcome replay = SpaceTeardown.tearDown(claims, members,
                    withClaim(f, f.alpha, outcome.retiredJwt()), connector(nats), stored::add, WAIT);
            assertEquals(List.of(), replay.deleted(), "a replay deletes nothing");
            assertTrue(NatsJwt.decode(replay.retiredJwt()).iat() > NatsJwt.decode(outcome.retiredJwt()).iat());
            assertEquals(replay.retiredJwt(), claims.lookup(f.alpha.accountPublicKey(), WAIT).orElseThrow());
            assertEquals(0, conn(replay.retiredJwt()), "still retired");
        }
    }

    @Test
    void aFailedConnectOrStoreStillClosesTheWindowAndAReplayFinishes(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> f.config(b, 100));
        try (Connection system = f.system(nats)) {
            AccountClaims claims = new AccountClaims(system, f.broker, f.clock);
            ClusterMembers members = claims.members(WAIT);
            String retired = provisionAndRetireAlpha(claims, members, nats);

            CotalException down = new CotalException(ErrorCode.UNAVAILABLE, "the teardown connection failed");
            CotalException thrown = assertThrows(CotalException.class, () -> SpaceTeardown.tearDown(claims, members,
                    withClaim(f, f.alpha, retired), creds -> {
                        throw down;
                    }, stored::add, WAIT));
            assertSame(down, thrown, "the failure is the caller's");
            assertEquals(1, stored.size(), "a new retirement was given to the caller after the failure");
            assertEquals(stored.get(0), claims.lookup(f.alpha.accountPublicKey(), WAIT).orElseThrow(),
                    "and pushed: the window is not left open");
            assertEquals(0, conn(stored.get(0)));

            // each run re-signs twice, a second apart: the later runs are made later, as a replay is
            AccountClaims later = new AccountClaims(system, f.broker, Clock.offset(f.clock, Duration.ofSeconds(10)));
            SpaceTeardown.Outcome replay = SpaceTeardown.tearDown(later, members, withClaim(f, f.alpha, stored.get(0)),
                    connector(nats), stored::add, WAIT);
            assertEquals(StoreNames.allStreams("alpha"), replay.deleted(), "the replay finishes the teardown");

            CotalException full = new CotalException(ErrorCode.UNAVAILABLE, "the record store is full");
            AccountClaims latest = new AccountClaims(system, f.broker, Clock.offset(f.clock, Duration.ofSeconds(20)));
            thrown = assertThrows(CotalException.class, () -> SpaceTeardown.tearDown(latest, members,
                    withClaim(f, f.alpha, replay.retiredJwt()), connector(nats), jwt -> {
                        stored.add(jwt);
                        throw full;
                    }, WAIT));
            assertSame(full, thrown);
            String held = claims.lookup(f.alpha.accountPublicKey(), WAIT).orElseThrow();
            assertEquals(stored.get(2), held, "the retirement was pushed although storing it failed");
            assertEquals(0, conn(held));
            refusedByTheBroker(nats, used.get(1));
        }
    }
}
