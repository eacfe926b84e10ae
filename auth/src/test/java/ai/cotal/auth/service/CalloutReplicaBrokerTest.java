package ai.cotal.auth.service;

import ai.cotal.auth.Grant;
import ai.cotal.auth.SpaceProvisioning;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.BearerRequest;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.Principal;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.workspace.SecretKeys;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Callout replicas refuse spaces with open service-endpoint admission and answer for the others. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class CalloutReplicaBrokerTest {
    private final Clock clock = Clock.systemUTC();
    private final BrokerAuth broker = BrokerAuth.create("replica", clock);
    private final SpaceAccountAuth alpha = SpaceAccountAuth.create(broker, "alpha", clock);
    private final SpaceAccountAuth beta = SpaceAccountAuth.create(broker, "beta", clock);
    private final SpaceAccountAuth gamma = SpaceAccountAuth.create(broker, "gamma", clock);
    private final Map<String, CalloutAuth> callouts = new java.util.HashMap<>();
    private final InMemorySecretStore store = new InMemorySecretStore();

    @TempDir
    Path root;

    private NatsBroker provision(NatsBrokers brokers) {
        for (SpaceAccountAuth account : List.of(alpha, beta, gamma)) {
            String space = new SpaceAuth(broker, account).account().space();
            callouts.put(space, CalloutAuth.create(space, broker, account.accountPublicKey(), clock));
            if (!space.equals("gamma")) {
                SpaceProvisioning.forSpace(new SpaceAuth(broker, account), callouts.get(space)).write(store);
            }
        }
        return brokers.start(b -> ServerConfig.render(broker, List.of(alpha, beta, gamma), ServerConfigOptions.builder()
                .transport(Transport.plaintext()).storeDir(b.storeDir()).extraAccounts(callouts.values().stream()
                        .map(CalloutAuth::jwt).toList()).build()));
    }

    private AuthAuthorityPlane plane(NatsBroker nats, SpaceAccountAuth account, boolean endpoints) {
        SpaceAuth auth = new SpaceAuth(broker, account);
        return AuthAuthorityPlane.open(AuthPlaneOptions.builder().server(nats.url()).space(auth.account().space())
                .stateDir(root.resolve(auth.account().space())).secretStore(store).signer(auth.strip()).clock(clock)
                .serviceEndpoints(endpoints).build());
    }

    @Test
    void replicasRefuseOpenAdmissionAndAnswerForTheOtherSpaces(NatsBrokers brokers) throws Exception {
        NatsBroker nats = provision(brokers);
        String bearer;
        String nonce = ai.cotal.auth.InboxNonce.forPrincipal(Principal.of("u_abcdefghijklmnopqrstuvwxyz", "laptop"));
        try (AuthAuthorityPlane a = plane(nats, alpha, false)) {
            ActorRow row = a.ledger().grantActor(Principal.of("u_abcdefghijklmnopqrstuvwxyz", "laptop"),
                    Grant.of(List.of("chat"), List.of("general"), List.of()));
            CredentialId credential = a.credentials().mint(row.principal(), row.lifecycleUid()).id();
            bearer = a.bearers().issue(BearerRequest.member(row.principal(), List.of("chat"), row.lifecycleUid(),
                    credential, Duration.ofMinutes(5)));
        }
        plane(nats, beta, true).close(); // the first open with service endpoints opens beta's admission for good
        plane(nats, beta, false).close();

        assertFalse(ServiceEndpointAdmission.admitsServiceEndpoints("alpha", List.of(nats.url()), store));
        assertTrue(ServiceEndpointAdmission.admitsServiceEndpoints("beta", List.of(nats.url()), store),
                "nothing closes admission, not even an open without service endpoints");
        CotalException noKeys = assertThrows(CotalException.class,
                () -> ServiceEndpointAdmission.admitsServiceEndpoints("gamma", List.of(nats.url()), store));
        assertEquals(ErrorCode.FAILED_PRECONDITION, noKeys.code());
        SpaceProvisioning.forSpace(new SpaceAuth(broker, gamma), callouts.get("gamma")).write(store);
        CotalException noStores = assertThrows(CotalException.class,
                () -> ServiceEndpointAdmission.admitsServiceEndpoints("gamma", List.of(nats.url()), store));
        assertEquals(ErrorCode.FAILED_PRECONDITION, noStores.code(), "gamma's stores were never created");

        CotalException single = assertThrows(CotalException.class, () -> CalloutReplica.start(CalloutReplica.Options.builder()
                .server(nats.url()).stateDirs(Map.of("beta", root.resolve("beta"))).secrets(store).clock(clock).build()));
        assertEquals(ErrorCode.FAILED_PRECONDITION, single.code());
        assertTrue(single.getMessage().contains("\"beta\""), single.getMessage());

        CountDownLatch betaRetried = new CountDownLatch(3);
        try (CalloutReplica replica = CalloutReplica.start(CalloutReplica.Options.builder().server(nats.url())
                .stateDirs(Map.of("alpha", root.resolve("alpha"), "beta", root.resolve("beta"))).secrets(store)
                .retry(Duration.ofMillis(200)).clock(clock).onRefusal((space, why) -> {
                    if (space.equals("beta")) {
                        betaRetried.countDown();
                    }
                }).build())) {
            assertEquals(java.util.Set.of("alpha"), replica.serving());
            assertTrue(replica.refused().get("beta").contains("admission is open"), replica.refused().toString());
            assertTrue(betaRetried.await(10, TimeUnit.SECONDS), "the refused space is retried on its interval");

            Options viaReplica = new Options.Builder().server(nats.url()).noReconnect()
                    .connectionTimeout(Duration.ofSeconds(10)).maxControlLine(ServerConfig.MAX_CONTROL_LINE)
                    .authHandler(callouts.get("alpha").sentinelCreds().authHandler()).token(bearer.toCharArray())
                    .connectionName(nonce).inboxPrefix(ai.cotal.auth.InboxNonce.inboxPrefix(nonce)).build();
            try (Connection client = Nats.connect(viaReplica)) {
                assertEquals(Connection.Status.CONNECTED, client.getStatus(), "only the replica answers alpha's callout");
            }
        }
    }
}
