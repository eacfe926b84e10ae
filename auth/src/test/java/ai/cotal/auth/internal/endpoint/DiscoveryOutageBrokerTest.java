package ai.cotal.auth.internal.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.Grant;
import ai.cotal.auth.Granter;
import ai.cotal.auth.PlaneFixture;
import ai.cotal.auth.ServiceEndpointHost;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
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
import ai.cotal.core.id.Principal;
import ai.cotal.core.internal.connect.ConnectionEvents;
import ai.cotal.core.jwt.AccountClaim;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.ClaimVerifier;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.internal.kv.StoreNames;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #18 part 5: the service-endpoint host's discovery connection loses the broker while every
 * other connection of the plane keeps it (SPEC §13.12: discovery is an ordinary renewing
 * read-only client). The broker itself cuts it: the space's account claim, pushed through the
 * broker's full resolver, revokes discovery's user key, so the broker closes that one connection
 * and refuses its reconnects; a later claim without the revocation lets the stock client back in.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class DiscoveryOutageBrokerTest {
    private static final String DISCOVERY = "cotal:ep-discovery:alpha";
    private static final Duration WAIT = Duration.ofSeconds(5);

    @TempDir
    Path stateDir;

    private static String fullResolverConfig(PlaneFixture f, NatsBroker nats) {
        return ServerConfig.render(f.broker, List.of(f.space), ServerConfigOptions.builder()
                .transport(Transport.plaintext()).storeDir(nats.storeDir())
                .resolver(AccountResolver.full(nats.workDir().resolve("account-jwts"), 10, Duration.ofMinutes(2)))
                .build());
    }

    /** The space's account claim re-issued by the operator with {@code revocations}, later than {@code previous}. */
    private static String reissued(PlaneFixture f, String previous, Map<String, Long> revocations) {
        ClaimSet<AccountClaim> current = new ClaimVerifier(f.clock).verifyAccount(previous, f.broker.operatorClaims(f.clock));
        AccountClaim body = current.nats();
        AccountClaim next = new AccountClaim(body.limits(), body.signingKeys(), revocations.isEmpty() ? null : revocations,
                body.defaultPermissions(), body.authorization(), body.description(), body.tags());
        long iat = Math.max(f.clock.instant().getEpochSecond(), current.iat() + 1);
        return NatsJwt.encode(new ClaimSet<>(null, iat, null, current.name(), current.sub(), current.aud(), current.exp(),
                null, next), f.broker.operator());
    }

    /** The connection named {@code name} as the broker lists it: its user key. */
    private static String authorizedUser(PlaneFixture f, NatsBroker nats, String name) throws Exception {
        List<String> users = SpaceConnections.connections(f, nats).stream().filter(c -> c.name().equals(name))
                .map(SpaceConnections.Listed::user).toList();
        assertEquals(1, users.size(), "one connection is named " + name);
        assertTrue(users.get(0).startsWith("U"), name + " is listed by CONNZ with its user key");
        return users.get(0);
    }

    @Test
    void discoveryLosingItsBrokerAloneAnswersUnavailableWritesNothingAndServesOnceItReconnects(NatsBrokers brokers)
            throws Exception {
        PlaneFixture f = new PlaneFixture();
        NatsBroker nats = brokers.start(b -> fullResolverConfig(f, b));
        Creds claimsCreds = Creds.mintSystem(f.broker, Identity.create(), CredentialProfile.ACCOUNT_CLAIMS, null,
                MintOptions.defaults());
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).serviceEndpoints(true).build());
                Connection admin = f.admin(nats);
                Connection system = NatsConnector.builder().server(nats.url()).creds(claimsCreds).label("test-claims")
                        .build().connect()) {
            plane.ledger().grantActor(Principal.of(EndpointFixture.OWNER, "laptop"), Grant.of(List.of(), List.of(), List.of()));
            Granter.Owner owner = new Granter.Owner(EndpointFixture.OWNER, "laptop");
            ServiceEndpointHost host = plane.serviceEndpoints().orElseThrow();
            String iid = EndpointFixture.iid();
            HostResult registered = host.admit(owner, new HostRequest.Register(EndpointFixture.rid(), "weather", iid,
                    EndpointFixture.CONTRACT, List.of("ask")));
            assertEquals(HostResult.Status.PENDING, registered.status(), String.valueOf(registered.reason()));
            HostRequest.InstanceRead read = new HostRequest.InstanceRead("weather", iid);
            assertEquals(HostResult.Status.COMPLETED, host.serve(owner, read).status());

            Connection discovery = ((ai.cotal.auth.internal.plane.AuthorityPlaneImpl) plane).serviceEndpointEngine()
                    .discovery().connection();
            CountDownLatch lost = new CountDownLatch(1);
            CountDownLatch back = new CountDownLatch(1);
            discovery.addConnectionListener((ConnectionEvents) (conn, type, time, uri) -> {
                if (type == io.nats.client.ConnectionListener.Events.DISCONNECTED) {
                    lost.countDown();
                } else if (type == io.nats.client.ConnectionListener.Events.RECONNECTED) {
                    back.countDown();
                }
            });
            String discoveryUser = authorizedUser(f, nats, DISCOVERY);
            AccountClaims claims = new AccountClaims(system, f.broker, f.clock);
            String revoking = reissued(f, f.space.jwt(), Map.of(discoveryUser,
                    f.clock.instant().plus(Duration.ofHours(1)).getEpochSecond()));
            String bucket = StoreNames.bucket("auth", "alpha");
            long before = admin.jetStreamManagement().getStreamInfo("KV_" + bucket).getStreamState().getLastSequence();

            claims.push(revoking, Set.of(nats.serverId()), WAIT);
            assertTrue(lost.await(10, TimeUnit.SECONDS), "the broker closed the discovery connection");

            CotalException readRefused = assertThrows(CotalException.class, () -> host.serve(owner, read));
            assertEquals(ErrorCode.UNAVAILABLE, readRefused.code(), readRefused.getMessage());
            CotalException writeRefused = assertThrows(CotalException.class, () -> host.serve(owner,
                    new HostRequest.Decide(EndpointFixture.rid(), "weather", iid, HostRequest.Decision.APPROVE)));
            assertEquals(ErrorCode.UNAVAILABLE, writeRefused.code(), writeRefused.getMessage());
            assertTrue(writeRefused.getMessage().contains("nothing was written"), writeRefused.getMessage());
            assertEquals(before, admin.jetStreamManagement().getStreamInfo("KV_" + bucket).getStreamState()
                    .getLastSequence(), "nothing was written while discovery had no broker");
            assertFalse(plane.fenced().isDone(), "the plane itself keeps its broker");
            plane.bearers().jwks();
            assertNotEquals(Connection.Status.CLOSED, discovery.getStatus(), "the stock client keeps trying");

            claims.push(reissued(f, revoking, Map.of()), Set.of(nats.serverId()), WAIT);
            assertTrue(back.await(10, TimeUnit.SECONDS), "the stock client reconnected");
            assertEquals(HostResult.Status.COMPLETED, host.serve(owner, read).status(), "reads serve again");
            HostResult approved = host.serve(owner, new HostRequest.Decide(EndpointFixture.rid(), "weather", iid,
                    HostRequest.Decision.APPROVE));
            assertEquals(HostResult.Status.COMPLETED, approved.status(), "writes serve again: " + approved.reason());
        }
    }
}
