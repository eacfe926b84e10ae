package ai.cotal.auth.internal.plane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.BearerClaims;
import ai.cotal.auth.ConnectAttempt;
import ai.cotal.auth.EndpointInstance;
import ai.cotal.auth.PlaneFixture;
import ai.cotal.auth.internal.callout.AuthCallout;
import ai.cotal.auth.internal.callout.CalloutAuthority;
import ai.cotal.auth.internal.callout.CalloutFixture;
import ai.cotal.auth.internal.callout.CalloutOptions;
import ai.cotal.auth.internal.callout.EndpointAccess;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.issued.Ceiling;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.workspace.SecretKeys;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker sweep (SPEC §13.16) against the real broker's CONNZ: users the callout admitted,
 * named after the endpoint keys their authority gave them, read page by page (small pages, so a
 * few connections span several), found by the key their name holds and no other; a static user's
 * name is not its CONNZ user, so it is never found; a sweep that cannot finish says so.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class ConnectionSweepBrokerTest {
    private static final EndpointInstance WEATHER = new EndpointInstance("weather", "0123456789abcdefghijklmnop");
    private final CalloutFixture c = new CalloutFixture();
    private final PlaneFixture f = c.plane;

    @TempDir
    Path stateDir;

    /**
     * The plane's callout authority, except that each actor holds the grants {@code grants} names
     * (what a plane with service endpoints reads from the host's records).
     */
    private static CalloutAuthority granting(CalloutAuthority plane, Map<String, List<String>> grants) {
        return new CalloutAuthority() {
            @Override
            public String space() {
                return plane.space();
            }

            @Override
            public BearerClaims verifyBearer(String token) {
                return plane.verifyBearer(token);
            }

            @Override
            public ActorRow authorizeConnect(ConnectAttempt attempt) {
                return plane.authorizeConnect(attempt);
            }

            @Override
            public Ceiling issueUserCaller(BearerClaims bearer, String connId, Ceiling ceiling) {
                return plane.issueUserCaller(bearer, connId, ceiling);
            }

            @Override
            public EndpointAccess endpointAccess(BearerClaims bearer, ActorRow row) {
                return EndpointAccess.callerGrants(grants.getOrDefault(row.actor().value(), List.of()).stream()
                        .map(id -> new EndpointAccess.Grant(id, WEATHER, List.of("ask"))).toList());
            }
        };
    }

    /** A static data-account user named {@code name} (a test inspection user: no limits). */
    private Connection named(NatsBroker nats, String name) {
        Identity identity = Identity.create();
        String jwt = NatsJwt.encode(ClaimSet.of(identity.id(), name, UserClaim.of(null, null, f.space.accountPublicKey(),
                null), f.clock.instant()), f.space.signing());
        return NatsConnector.builder().server(nats.url()).creds(new Creds(jwt, identity)).label("test-named").build()
                .connect();
    }

    private ConnectionSweep sweep(NatsBroker nats, int maxPages) {
        return new ConnectionSweep(List.of(nats.url()), "alpha", f.space.accountPublicKey(), f.store, null, 4, 2, maxPages);
    }

    private static long cid(Connection connection) {
        return connection.getServerInfo().getClientId();
    }

    private static Set<Long> cids(ConnectionSweep.Found found) {
        return found.connections().stream().map(ConnectionEvictor.Target::clientId).collect(Collectors.toSet());
    }

    @Test
    void aSweepReadsEveryPageOfTheServerAndFindsTheHoldersOfTheKeyOnly(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(c::config);
        Map<String, List<String>> grants = Map.of("alice", List.of("g1"), "bob", List.of("g2"), "carol", List.of("g2", "g1"),
                "dave", List.of("g11"), "erin", List.of("g0", "g1"));
        List<Connection> connections = new ArrayList<>();
        try (AuthAuthorityPlane plane = c.open(nats, stateDir); AuthCallout callout = AuthCallout.start(
                CalloutOptions.builder().server(nats.url()).callout(c.callout).plane(granting(((AuthorityPlaneImpl) plane).calloutAuthority(),
                        grants)).signer(new SpaceAuth(f.broker, f.space).strip()).build())) {
            int planeConnections = accountConnections(nats);
            String[] actors = {"bob", "alice", "frank", "dave", "carol", "gina", "erin"};
            for (String actor : actors) {
                String bearer = c.bearer(plane, actor, List.of(), List.of(), Duration.ofMinutes(5));
                connections.add(c.connect(nats, bearer, CalloutFixture.nonce(actor, "sweep-" + actor)).connection());
            }
            connections.add(named(nats, "u_o-mallory grant:g1")); // a static user: its CONNZ user is its public key
            Set<Long> holders = Set.of(cid(connections.get(1)), cid(connections.get(4)), cid(connections.get(6)));

            ConnectionSweep.Found found = sweep(nats, 64).find(EndpointAccess.grantKey("g1"));
            assertTrue(found.complete(), (planeConnections + 8) + " connections in pages of four overlapping by two: read"
                    + " to the end");
            assertEquals(holders, cids(found), "the holders of grant:g1 on every page, and no other");
            assertEquals(Set.of(nats.serverId()), found.connections().stream().map(ConnectionEvictor.Target::serverId)
                    .collect(Collectors.toSet()));
            assertEquals(Set.of(cid(connections.get(3))), cids(sweep(nats, 64).find(EndpointAccess.grantKey("g11"))));

            ConnectionSweep.Found cut = sweep(nats, 2).find(EndpointAccess.grantKey("g1"));
            assertFalse(cut.complete(), "two pages of four cannot hold every connection of the account");
            assertTrue(holders.containsAll(cids(cut)), "what the pages read is still found");
        } finally {
            for (Connection connection : connections) {
                connection.close();
            }
        }
    }

    /** How many connections the data account has now (the plane's own among them). */
    private int accountConnections(NatsBroker nats) throws Exception {
        try (Connection observer = f.system(nats, Creds.parse(f.store.getText(SecretKeys.membershipObserverCredsKey("alpha"))
                .orElseThrow()))) {
            byte[] connz = observer.request("$SYS.REQ.ACCOUNT." + f.space.accountPublicKey() + ".CONNZ",
                    "{}".getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(5)).getData();
            return new ObjectMapper().readTree(connz).path("data").path("total").asInt();
        }
    }

    @Test
    void withoutTheObserverCredentialTheSweepFindsNothingAndSaysSo(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(c::config);
        try (Connection alice = named(nats, "u_o-alice grant:g1")) {
            ConnectionSweep.Found found = new ConnectionSweep(List.of(nats.url()), "alpha", f.space.accountPublicKey(),
                    new InMemorySecretStore(), null).find(EndpointAccess.grantKey("g1"));
            assertEquals(ConnectionSweep.Found.nothing(), found);
            assertEquals(Connection.Status.CONNECTED, alice.getStatus());
        }
    }
}
