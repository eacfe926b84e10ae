package ai.cotal.auth.service;

import ai.cotal.auth.Grant;
import ai.cotal.auth.SpaceProvisioning;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.EndpointInstance;
import ai.cotal.auth.InboxNonce;
import ai.cotal.auth.micrometer.MicrometerSink;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
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
 * A callout host applies its manifest, writes the applied copy, re-applies a changed manifest, and a
 * lane open before its space's admission opened keeps answering and refuses the service connect.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class CalloutHostBrokerTest {
    private static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";
    private static final String NONCE = InboxNonce.forPrincipal(Principal.of(OWNER, "laptop"));
    private static final String REPLICA_REFUSAL = "a callout replica cannot issue a service-endpoint connection";

    private final Clock clock = Clock.systemUTC();
    private final BrokerAuth broker = BrokerAuth.create("callouthost", clock);
    private final Map<String, SpaceAccountAuth> accounts = Map.of("alpha", SpaceAccountAuth.create(broker, "alpha", clock),
            "beta", SpaceAccountAuth.create(broker, "beta", clock));
    private final Map<String, CalloutAuth> callouts = new java.util.HashMap<>();
    private final InMemorySecretStore store = new InMemorySecretStore();

    @TempDir
    Path root;

    private NatsBroker provision(NatsBrokers brokers) {
        for (SpaceAccountAuth account : accounts.values()) {
            String space = new SpaceAuth(broker, account).account().space();
            callouts.put(space, CalloutAuth.create(space, broker, account.accountPublicKey(), clock));
            SpaceProvisioning.forSpace(new SpaceAuth(broker, account), callouts.get(space)).write(store);
        }
        return brokers.start(b -> ServerConfig.render(broker, List.copyOf(accounts.values()), ServerConfigOptions.builder()
                .transport(Transport.plaintext()).storeDir(b.storeDir()).extraAccounts(callouts.values().stream()
                        .map(CalloutAuth::jwt).toList()).build()));
    }

    private Path stateRoot() {
        return root.resolve("state");
    }

    private AuthAuthorityPlane plane(NatsBroker nats, String space, boolean endpoints) {
        SpaceAuth auth = new SpaceAuth(broker, accounts.get(space));
        return AuthAuthorityPlane.open(AuthPlaneOptions.builder().server(nats.url()).space(space)
                .stateDir(stateRoot().resolve(SecretKeys.spaceSegment(space))).secretStore(store).signer(auth.strip())
                .clock(clock).serviceEndpoints(endpoints).build());
    }

    /** A bearer of the space's laptop actor (its ledger row granted on first use), plain or serving. */
    private static String bearer(AuthAuthorityPlane plane, boolean serving) {
        ActorRow row = plane.ledger().find(Principal.of(OWNER, "laptop")).orElseGet(() -> plane.ledger().grantActor(Principal.of(OWNER, "laptop"),
                Grant.of(List.of("chat"), List.of("general"), List.of())));
        CredentialId credential = plane.credentials().mint(row.principal(), row.lifecycleUid()).id();
        return plane.bearers().issue(serving ? BearerRequest.serving(row.principal(), row.lifecycleUid(), credential,
                Duration.ofMinutes(5), new EndpointInstance("weather", "a".repeat(26)))
                : BearerRequest.member(row.principal(), List.of("chat"), row.lifecycleUid(), credential, Duration.ofMinutes(5)));
    }

    private Connection connect(NatsBroker nats, String space, String bearer) throws Exception {
        return Nats.connect(new Options.Builder().server(nats.url()).noReconnect().connectionTimeout(Duration.ofSeconds(5))
                .maxControlLine(ServerConfig.MAX_CONTROL_LINE).authHandler(callouts.get(space).sentinelCreds().authHandler())
                .token(bearer.toCharArray()).connectionName(NONCE).inboxPrefix(InboxNonce.inboxPrefix(NONCE)).build());
    }

    private void assertAnswered(NatsBroker nats, String space, String bearer) throws Exception {
        try (Connection client = connect(nats, space, bearer)) {
            assertEquals(Connection.Status.CONNECTED, client.getStatus(), space + " is answered by the callout host");
        }
    }

    private CalloutHost.Options.Builder options(NatsBroker nats, Path manifest) {
        return CalloutHost.Options.builder().server(nats.url()).manifest(manifest).stateRoot(stateRoot()).secretStore(store)
                .clock(clock);
    }

    private static String manifest(String... spaces) {
        return "{\"ver\":1,\"spaces\":[" + String.join(",", java.util.Arrays.stream(spaces)
                .map(s -> "{\"space\":\"" + s + "\"}").toList()) + "]}";
    }

    @Test
    void aLaneOpenBeforeTheAdmissionOpenedKeepsAnsweringAndRefusesTheServiceConnect(NatsBrokers brokers)
            throws Exception {
        NatsBroker nats = provision(brokers);
        String plain;
        String serving;
        try (AuthAuthorityPlane alpha = plane(nats, "alpha", false)) {
            plain = bearer(alpha, false);
            serving = bearer(alpha, true);
        }
        Path file = Files.writeString(root.resolve("replicas.json"), manifest("alpha"));
        io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        try (CalloutHost host = CalloutHost.start(options(nats, file).meterSink(MicrometerSink.of(registry)).build())) {
            assertEquals(Set.of("alpha"), host.serving());
            assertAnswered(nats, "alpha", plain); // no plane callout runs here: only the host's lane answers
            assertEquals(1.0, registry.get("cotal.auth.callout.decisions").tags("space", "alpha", "outcome", "admitted")
                    .counter().count(), "the replica lane counts its answer, tagged with its space");
            assertEquals(1.0, registry.get("cotal.auth.callout.answering").tags("space", "alpha").gauge().value());

            plane(nats, "alpha", true).close(); // opens alpha's admission for good, under the running lane
            assertTrue(ServiceEndpointAdmission.admitsServiceEndpoints("alpha", List.of(nats.url()), store));
            assertEquals(Set.of("alpha"), host.serving(), "a lane checks admission when it opens, not after");
            assertAnswered(nats, "alpha", plain);

            long mark = nats.log().mark();
            Exception refused = assertThrows(Exception.class, () -> connect(nats, "alpha", serving).close());
            assertTrue(String.valueOf(refused.getMessage()).contains("Authorization Violation"), refused.toString());
            assertTrue(nats.log().await(mark, line -> line.contains(REPLICA_REFUSAL), Duration.ofSeconds(5)).isPresent(),
                    "the broker logs the replica's signed refusal:\n" + nats.logTail(30));
            assertAnswered(nats, "alpha", plain); // and the lane answers on
        }
    }

    @Test
    void theHostAppliesItsManifestWritesTheAppliedCopyAndReappliesOnChange(NatsBrokers brokers) throws Exception {
        NatsBroker nats = provision(brokers);
        Map<String, String> bearers = new java.util.HashMap<>();
        for (String space : List.of("alpha", "beta")) {
            try (AuthAuthorityPlane plane = plane(nats, space, false)) {
                bearers.put(space, bearer(plane, false));
            }
        }
        Path file = Files.writeString(root.resolve("replicas.json"), manifest("alpha"));
        CountDownLatch betaRetried = new CountDownLatch(3);
        try (CalloutHost host = CalloutHost.start(options(nats, file).retry(Duration.ofMillis(200))
                .onRefusal((space, why) -> {
                    if (space.equals("beta")) {
                        betaRetried.countDown();
                    }
                }).build())) {
            assertEquals(Set.of("alpha"), host.serving());
            assertArrayEquals(Files.readAllBytes(file), Files.readAllBytes(host.appliedFile()));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(host.appliedFile())));
            assertAnswered(nats, "alpha", bearers.get("alpha"));

            Files.writeString(file, manifest("alpha", "beta"));
            host.apply();
            assertEquals(Set.of("alpha", "beta"), host.serving());
            assertArrayEquals(Files.readAllBytes(file), Files.readAllBytes(host.appliedFile()), "the applied copy follows");
            assertAnswered(nats, "beta", bearers.get("beta"));

            byte[] applied = Files.readAllBytes(host.appliedFile());
            Files.writeString(file, "{\"ver\":1,\"spaces\":[{\"space\":\"alpha\"},{\"space\":\"beta\",\"serviceEndpoints\":true}]}");
            CotalException endpoints = assertThrows(CotalException.class, host::apply);
            assertEquals(ErrorCode.BAD_REQUEST, endpoints.code());
            assertTrue(endpoints.getMessage().contains("spaces[1].serviceEndpoints"), endpoints.getMessage());
            Files.writeString(file, "{\"ver\":1,\"spaces\":[{\"space\":\"alpha\",\"extra\":1}]}");
            assertEquals(ErrorCode.BAD_REQUEST, assertThrows(CotalException.class, host::apply).code());
            assertEquals(Set.of("alpha", "beta"), host.serving(), "a refused manifest changes nothing");
            assertArrayEquals(applied, Files.readAllBytes(host.appliedFile()), "and leaves the applied copy as it was");

            // turning endpoints on for beta: off the manifest first, and the applied copy says it is in effect
            Files.writeString(file, manifest("alpha"));
            host.apply();
            assertEquals(Set.of("alpha"), host.serving());
            assertArrayEquals(Files.readAllBytes(file), Files.readAllBytes(host.appliedFile()));
            assertThrows(Exception.class, () -> connect(nats, "beta", bearers.get("beta")).close(),
                    "nothing answers beta's callout once its lane left");
            plane(nats, "beta", true).close();

            // listed again with its admission open: named and retried, while alpha is answered
            Files.writeString(file, manifest("alpha", "beta"));
            host.apply();
            assertEquals(Set.of("alpha"), host.serving());
            assertTrue(host.refused().get("beta").contains("admission is open"), host.refused().toString());
            assertArrayEquals(Files.readAllBytes(file), Files.readAllBytes(host.appliedFile()));
            assertTrue(betaRetried.await(10, TimeUnit.SECONDS), "the refused space is retried on its interval");
            assertAnswered(nats, "alpha", bearers.get("alpha"));

            // unlike a single-space replica, a host whose only space is refused keeps running
            Files.writeString(file, manifest("beta"));
            host.apply();
            assertEquals(Set.of(), host.serving());
            assertEquals(Set.of("beta"), host.refused().keySet());
        }
    }
}
