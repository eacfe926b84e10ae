package ai.cotal.auth;

import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.workspace.SecretKeys;
import io.nats.client.Connection;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

/** A broker trust with one space, its secret store (every secret provisioned) and plane options. */
public final class PlaneFixture {
    /** The cluster block of one test cluster member: its name, server name, route listener and routes to every peer. */
    public static ai.cotal.core.config.ClusterConfig cluster(ai.cotal.testbroker.ClusterMember m) {
        ai.cotal.core.config.ClusterConfig.Builder cluster = ai.cotal.core.config.ClusterConfig.builder()
                .name(m.clusterName()).serverName(m.serverName()).listen(m.host(), m.clusterPort());
        m.peerClusterPorts().forEach(port -> cluster.route(m.host(), port));
        return cluster.build();
    }

    /** A full account resolver in the member's work directory (operator mode, claims pushed at run time). */
    public static ai.cotal.core.config.AccountResolver fullResolver(ai.cotal.testbroker.ClusterMember m) {
        return ai.cotal.core.config.AccountResolver.full(m.workDir().resolve("jwt"), 1000, java.time.Duration.ofMinutes(2));
    }

    public final Clock clock = Clock.systemUTC();
    public final BrokerAuth broker = BrokerAuth.create("plane", clock);
    public final SpaceAccountAuth space = SpaceAccountAuth.create(broker, "alpha", clock);
    public final InMemorySecretStore store = new InMemorySecretStore();
    public final ai.cotal.core.trust.CalloutAuth callout = ai.cotal.core.trust.CalloutAuth.create("alpha", broker,
            space.accountPublicKey(), clock);
    /** The connection-evictor credential provisioning wrote. */
    public final Creds evictor;

    /** Provisions every secret of space {@code alpha} into {@link #store}. */
    public PlaneFixture() {
        SpaceProvisioning.forSpace(new SpaceAuth(broker, space), callout).write(store);
        evictor = Creds.parse(store.getText(SecretKeys.connectionEvictorCredsKey("alpha")).orElseThrow());
    }

    /** A store holding every secret of {@code space} under a trust of its own (another space's keys). */
    public static InMemorySecretStore provisioned(String space) {
        SpaceAuth auth = SpaceAuth.create(space, Clock.systemUTC());
        InMemorySecretStore store = new InMemorySecretStore();
        SpaceProvisioning.forSpace(auth, ai.cotal.core.trust.CalloutAuth.create(space, auth.broker(),
                auth.account().accountPublicKey(), Clock.systemUTC())).write(store);
        return store;
    }

    public String config(NatsBroker nats) {
        return ServerConfig.render(broker, List.of(space), ServerConfigOptions.builder().transport(Transport.plaintext())
                .storeDir(nats.storeDir()).build());
    }

    public AuthPlaneOptions.Builder options(NatsBroker nats, Path stateDir) {
        return AuthPlaneOptions.builder().server(nats.url()).space("alpha").stateDir(stateDir).secretStore(store)
                .signer(new SpaceAuth(broker, space).strip()).clock(clock);
    }

    /** A data-account user without limits: test inspection only. */
    public Connection admin(NatsBroker nats) {
        Identity identity = Identity.create();
        String jwt = NatsJwt.encode(ClaimSet.of(identity.id(), "test-admin", UserClaim.of(null, null,
                space.accountPublicKey(), null), clock.instant()), space.signing());
        return NatsConnector.builder().server(nats.url()).creds(new Creds(jwt, identity)).label("test-admin").build().connect();
    }

    /**
     * The operator's word after a broker restart: every connection of the old claim is gone (a
     * restarted broker is a new server, so no sweep can prove it by itself).
     */
    public static LivenessOracle operatorSaysGone() {
        return tuples -> {
            java.util.Map<ConnTuple, LivenessOracle.State> gone = new java.util.HashMap<>();
            tuples.forEach(t -> gone.put(t, LivenessOracle.State.GONE));
            return new LivenessOracle.Answer(gone, true);
        };
    }

    public Connection system(NatsBroker nats, Creds creds) {
        return NatsConnector.builder().server(nats.url()).creds(creds).label("test-system").build().connect();
    }
}
