package ai.cotal.core;

import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.testbroker.NatsBroker;
import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Test helpers: configs for the test broker and clients that watch for the broker's refusals. */
public final class BrokerClients {
    private BrokerClients() {
    }

    /** A plaintext MEMORY-resolver config for {@code broker}'s directories. */
    public static String config(NatsBroker broker, BrokerAuth auth, List<SpaceAccountAuth> spaces, List<String> extra) {
        return ServerConfig.render(auth, spaces, ServerConfigOptions.builder().transport(Transport.plaintext())
                .storeDir(broker.storeDir()).extraAccounts(extra).build());
    }

    /** The cluster block of one test cluster member: its name, server name, route listener and routes to every peer. */
    public static ai.cotal.core.config.ClusterConfig cluster(ai.cotal.testbroker.ClusterMember m) {
        ai.cotal.core.config.ClusterConfig.Builder cluster = ai.cotal.core.config.ClusterConfig.builder()
                .name(m.clusterName()).serverName(m.serverName()).listen(m.host(), m.clusterPort());
        m.peerClusterPorts().forEach(port -> cluster.route(m.host(), port));
        return cluster.build();
    }

    /** A full account resolver in the member's work directory (operator mode, claims pushed at run time). */
    public static ai.cotal.core.config.AccountResolver fullResolver(ai.cotal.testbroker.ClusterMember m) {
        return ai.cotal.core.config.AccountResolver.full(m.workDir().resolve("jwt"), 1000, Duration.ofMinutes(2));
    }

    /** A data-account user without permission limits: test setup only (e.g. altering a store behind the SDK's back). */
    public static Creds unrestricted(ai.cotal.core.trust.SpaceAccountAuth space) {
        ai.cotal.core.creds.Identity identity = ai.cotal.core.creds.Identity.create();
        String jwt = ai.cotal.core.jwt.NatsJwt.encode(ai.cotal.core.jwt.ClaimSet.of(identity.id(), "test-unrestricted",
                ai.cotal.core.jwt.UserClaim.of(null, null, space.accountPublicKey(), null), java.time.Instant.now()),
                space.signing());
        return new Creds(jwt, identity);
    }

    /** A client whose permission violations complete the returned future. */
    public record Client(Connection connection, CompletableFuture<String> violation) implements AutoCloseable {
        @Override
        public void close() throws InterruptedException {
            connection.close();
        }
    }

    /** A plain connection of {@code creds} to {@code broker}, through the one connection builder. */
    public static Connection plain(NatsBroker broker, Creds creds) {
        return ai.cotal.core.connect.NatsConnector.builder().server(broker.url()).creds(creds).label("test").build()
                .connect();
    }

    public static Options.Builder options(NatsBroker broker, Creds creds) {
        return ai.cotal.core.connect.NatsConnector.builder().server(broker.url()).creds(creds).label("test")
                .build().options();
    }

    /**
     * Connects where the broker must refuse, and returns the refusal. jnats waits out the connect
     * timeout after the broker's error, so a short timeout keeps these tests fast; the assertion is
     * on the broker's own error text.
     */
    public static java.io.IOException refusedConnect(NatsBroker broker, Creds creds) {
        try {
            Nats.connect(options(broker, creds).connectionTimeout(Duration.ofMillis(1500)).build()).close();
        } catch (java.io.IOException e) {
            return e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        throw new AssertionError("the broker accepted " + creds);
    }

    public static Client connect(NatsBroker broker, Creds creds) throws Exception {
        CompletableFuture<String> violation = new CompletableFuture<>();
        Options options = options(broker, creds).errorListener(new ErrorListener() {
            @Override
            public void errorOccurred(Connection conn, String error) {
                if (error.contains("Permissions Violation")) {
                    violation.complete(error);
                }
            }
        }).build();
        return new Client(Nats.connect(options), violation);
    }
}
