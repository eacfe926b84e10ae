package ai.cotal.auth.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.LivenessOracle;
import ai.cotal.auth.ServiceEndpoints;
import ai.cotal.auth.SpaceProvisioning;
import ai.cotal.auth.WriteBudgets;
import ai.cotal.auth.exchange.ExchangeOptions;
import ai.cotal.auth.exchange.FaceLimits;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.stores.StoreReplicas;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.core.trust.SpaceSigner;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The plane's options hold its settings, the service's only its faces; every builder names the option it refuses. */
class OptionsBuildTest {
    @TempDir
    Path dir;

    private final InMemorySecretStore store = new InMemorySecretStore();
    private final Clock clock = Clock.fixed(Instant.parse("2030-01-01T00:00:00Z"), ZoneOffset.UTC);

    @Test
    void thePlanesSignerAndCalloutMustBeItsSpacesAndShowNoSeed() {
        SpaceAuth alpha = SpaceAuth.create("alpha", clock);
        CalloutAuth callout = CalloutAuth.create("alpha", alpha.broker(), alpha.account().accountPublicKey(), clock);
        AuthPlaneOptions.Builder options = AuthPlaneOptions.builder().server("nats://a:4222").space("alpha")
                .stateDir(dir).secretStore(store);
        AuthPlaneOptions given = options.signer(alpha.strip()).callout(callout).build();
        assertEquals(alpha.account().accountPublicKey(), given.signer().accountPublicKey());
        assertEquals(callout.accountPublicKey(), given.callout().orElseThrow().accountPublicKey());
        assertFalse(given.toString().contains(alpha.account().signing().seed()), given.toString());
        assertTrue(given.toString().contains("callout=" + callout.accountPublicKey()), given.toString());
        assertTrue(options.callout(null).build().callout().isEmpty(), "without one the plane answers no callout");
        CotalException other = assertThrows(CotalException.class,
                () -> options.signer(SpaceAuth.create("beta", clock).strip()).build());
        assertEquals(ErrorCode.BAD_REQUEST, other.code());
        assertTrue(other.getMessage().startsWith("signer: belongs to space 'beta'"), other.getMessage());
        SpaceAuth beta = SpaceAuth.create("beta", clock);
        CotalException otherCallout = assertThrows(CotalException.class, () -> options.signer(alpha.strip())
                .callout(CalloutAuth.create("beta", beta.broker(), beta.account().accountPublicKey(), clock)).build());
        assertEquals(ErrorCode.BAD_REQUEST, otherCallout.code());
        assertTrue(otherCallout.getMessage().startsWith("callout: belongs to space 'beta'"), otherCallout.getMessage());
    }

    @Test
    void theServiceMaterialIsTheStoresServiceKeysOrTheRemoteSignerAndTheStoresCallout() {
        SpaceAuth alpha = SpaceAuth.create("alpha", clock);
        CalloutAuth callout = CalloutAuth.create("alpha", alpha.broker(), alpha.account().accountPublicKey(), clock);
        SpaceProvisioning.forSpace(alpha, callout).write(store);
        ServiceMaterial.Loaded keys = ServiceMaterial.forService(store, "alpha", null);
        assertEquals(alpha.account().accountPublicKey(), keys.signer().accountPublicKey(), "without one: service-keys.json");
        assertEquals(callout.accountPublicKey(), keys.callout().accountPublicKey());
        assertFalse(keys.toString().contains(alpha.account().signing().seed()), keys.toString());

        store.delete(ai.cotal.workspace.SecretKeys.serviceKeysKey("alpha")); // the seed lives with the signer
        SpaceSigner remote = alpha.strip();
        assertSame(remote, ServiceMaterial.forService(store, "alpha", remote).signer(), "a remote signer is used as given");
        CotalException missing = assertThrows(CotalException.class, () -> ServiceMaterial.forService(store, "alpha", null));
        assertEquals(ErrorCode.FAILED_PRECONDITION, missing.code());
        assertTrue(missing.getMessage().contains(ai.cotal.workspace.SecretKeys.serviceKeysKey("alpha")), missing.getMessage());
    }

    @Test
    void thePlaneGetsEverySharedSettingAndTheServiceOnlyItsFaces() {
        LivenessOracle oracle = tuples -> LivenessOracle.Answer.unknown(tuples);
        WriteBudgets budgets = new WriteBudgets(1, 2, 3, 4, 5, 6);
        SpaceAuth auth = SpaceAuth.create("alpha", clock);
        SpaceSigner signer = auth.strip();
        AuthPlaneOptions given = AuthPlaneOptions.builder().servers(List.of("nats://a:4222", "nats://b:4222"))
                .space("alpha").stateDir(dir.resolve("x/../state")).secretStore(store).clock(clock)
                .livenessOracle(oracle).standingTtl(Duration.ofMinutes(2)).serviceEndpoints(ServiceEndpoints.normal())
                .writeBudgets(budgets).storeReplicas(StoreReplicas.of(3)).signer(signer).build();
        AuthPlaneOptions plane = AuthPlaneOptions.builder().settings(given.settings()).signer(signer).build();

        assertEquals(List.of("nats://a:4222", "nats://b:4222"), plane.servers());
        assertEquals("alpha", plane.space());
        assertEquals(dir.resolve("state").toAbsolutePath(), plane.stateDir(), "absolute and normalized");
        assertSame(store, plane.secretStore());
        assertSame(clock, plane.clock());
        assertSame(oracle, plane.livenessOracle().orElseThrow());
        assertEquals(Duration.ofMinutes(2), plane.standingTtl());
        assertEquals(ServiceEndpoints.normal(), plane.serviceEndpoints().orElseThrow());
        assertEquals(budgets, plane.writeBudgets());
        assertEquals(6, plane.endpointWritesPerSpacePerMinute());
        assertSame(given.storeReplicas(), plane.storeReplicas());
        assertTrue(plane.toString().contains("StoreReplicas[3]"), plane.toString());
        assertFalse(plane.toString().contains(auth.account().signing().seed()), "no seed in toString: " + plane);

        AuthPlaneOptions defaults = AuthPlaneOptions.builder().server("nats://a:4222").space("alpha").stateDir(dir)
                .secretStore(store).signer(signer).build();
        assertEquals(AuthPlaneOptions.DEFAULT_STANDING_TTL, defaults.standingTtl());
        assertEquals(WriteBudgets.defaults(), defaults.writeBudgets());
        assertSame(StoreReplicas.one(), defaults.storeReplicas(), "one replica unless asked");
        assertTrue(defaults.serviceEndpoints().isEmpty() && defaults.livenessOracle().isEmpty());

        AuthServiceOptions service = AuthServiceOptions.builder().build();
        assertEquals(0, service.loopbackPort(), "an ephemeral port unless asked");
        assertSame(FaceLimits.DEFAULT, service.limits());
        assertEquals(ExchangeOptions.DEFAULT_JWKS_FETCHES_PER_MINUTE, service.jwksFetchesPerMinute());
        assertTrue(service.publicAddress().isEmpty() && service.oidc().isEmpty() && service.storeIdentity().isEmpty()
                && service.dataAccount().isEmpty(), service.toString());
        FaceLimits tight = FaceLimits.DEFAULT.withRefusalsPerMinute(5).withConnections(8, 2);
        AuthServiceOptions bounded = AuthServiceOptions.builder().loopbackPort(4000).limits(tight).build();
        assertEquals(4000, bounded.loopbackPort());
        assertEquals(tight, bounded.limits());
        assertTrue(bounded.toString().contains(tight.toString()), bounded.toString());
    }

    @Test
    void theIdentityRootIsTheSecretStoreUnlessSetAndMustBeADirectory() throws Exception {
        SpaceSigner signer = SpaceAuth.create("alpha", clock).strip();
        AuthPlaneOptions unset = AuthPlaneOptions.builder().server("nats://a:4222").space("alpha").stateDir(dir)
                .secretStore(store).signer(signer).build();
        assertEquals(java.util.Optional.empty(), unset.identityRoot(), "default: the secret store's AuthInstanceIdentity");
        AuthPlaneOptions moved = AuthPlaneOptions.builder().settings(unset.settings()).stateDir(dir.resolve("other"))
                .signer(signer).build();
        assertEquals(java.util.Optional.empty(), moved.identityRoot(), "an unset root stays unset with another state dir");

        AuthPlaneOptions set = AuthPlaneOptions.builder().server("nats://a:4222").space("alpha").stateDir(dir)
                .identityRoot(dir.resolve("x/../workspace")).secretStore(store).signer(signer).build();
        assertEquals(dir.resolve("workspace").toAbsolutePath(), set.identityRoot().orElseThrow(), "absolute and normalized");
        AuthPlaneOptions plane = AuthPlaneOptions.builder().settings(set.settings()).stateDir(dir.resolve("other"))
                .signer(signer).build();
        assertEquals(set.identityRoot(), plane.identityRoot(), "a set root is handed on as it is");
        assertTrue(plane.toString().contains("identityRoot=" + set.identityRoot().orElseThrow()), plane.toString());

        java.nio.file.Files.writeString(dir.resolve("a-file"), "x");
        Map<String, Supplier<Object>> bad = Map.of(
                "empty", () -> AuthPlaneOptions.builder().server("nats://a:4222").space("alpha").stateDir(dir)
                        .identityRoot(Path.of("")).secretStore(store).signer(signer).build(),
                "a file", () -> AuthPlaneOptions.builder().server("nats://a:4222").space("alpha").stateDir(dir)
                        .identityRoot(dir.resolve("a-file")).secretStore(store).signer(signer).build());
        bad.forEach((why, build) -> {
            CotalException e = assertThrows(CotalException.class, build::get, why);
            assertEquals(ErrorCode.BAD_REQUEST, e.code(), why);
            assertTrue(e.getMessage().startsWith("identityRoot"), why + ": " + e.getMessage());
        });
    }

    @Test
    void aRelativeStateDirOrIdentityRootIsRefusedNamingTheFieldAndNotThePath() {
        SpaceSigner signer = SpaceAuth.create("alpha", clock).strip();
        Path relative = Path.of("relative-state", "alpha");
        Map<String, Supplier<Object>> bad = Map.of(
                "plane stateDir", () -> AuthPlaneOptions.builder().server("nats://a:4222").space("alpha")
                        .stateDir(relative).secretStore(store).signer(signer).build(),
                "plane identityRoot", () -> AuthPlaneOptions.builder().server("nats://a:4222").space("alpha")
                        .stateDir(dir).identityRoot(relative).secretStore(store).signer(signer).build());
        bad.forEach((why, build) -> {
            CotalException e = assertThrows(CotalException.class, build::get, why);
            assertEquals(ErrorCode.BAD_REQUEST, e.code(), why);
            String field = why.substring(why.indexOf(' ') + 1);
            assertEquals(field + ": must be an absolute path (state never lands in the working directory)",
                    e.getMessage(), why);
        });
        assertFalse(java.nio.file.Files.exists(Path.of("relative-state")), "nothing was written in the working directory");
    }

    @Test
    void everyBuilderRefusesNamingTheOption() {
        SpaceSigner signer = SpaceAuth.create("alpha", clock).strip();
        Map<String, Supplier<Object>> bad = Map.ofEntries(
                Map.entry("servers", () -> AuthPlaneOptions.builder().servers(List.of(" ")).space("alpha").stateDir(dir)
                        .secretStore(store).signer(signer).build()),
                Map.entry("loopbackPort", () -> AuthServiceOptions.builder().loopbackPort(65536).build()),
                Map.entry("dataAccount", () -> AuthServiceOptions.builder().dataAccount("UABC").build()),
                Map.entry("limits", () -> AuthServiceOptions.builder().limits(null).build()),
                Map.entry("manifest", () -> AuthHost.Options.builder().server("nats://a:4222").stateRoot(dir)
                        .secretStore(store).build()),
                Map.entry("stateRoot", () -> AuthHost.Options.builder().server("nats://a:4222")
                        .manifest(dir.resolve("m.json")).secretStore(store).build()),
                Map.entry("stateDirs", () -> CalloutReplica.Options.builder().server("nats://a:4222").secrets(store)
                        .build()),
                Map.entry("secrets", () -> CalloutReplica.Options.builder().server("nats://a:4222")
                        .stateDirs(Map.of("alpha", dir)).build()),
                Map.entry("retry", () -> CalloutReplica.Options.builder().server("nats://a:4222")
                        .stateDirs(Map.of("alpha", dir)).secrets(store).retry(Duration.ZERO).build()),
                Map.entry("ttl", () -> CalloutReplica.Options.builder().server("nats://a:4222")
                        .stateDirs(Map.of("alpha", dir)).secrets(store).ttl(Duration.ofSeconds(-1)).build()),
                Map.entry("storeReplicas", () -> AuthPlaneOptions.builder().server("nats://a:4222").space("alpha")
                        .stateDir(dir).secretStore(store).storeReplicas(null).signer(signer).build()));
        bad.forEach((option, build) -> {
            CotalException e = assertThrows(CotalException.class, build::get, option);
            assertEquals(ErrorCode.BAD_REQUEST, e.code(), option);
            assertTrue(e.getMessage().startsWith(option), option + ": " + e.getMessage());
        });
    }

    @Test
    void theAuthHostCarriesOneStoreReplicaCountForEveryLaneAndRefusesNone() {
        AuthHost.Options.Builder host = AuthHost.Options.builder().server("nats://a:4222").manifest(dir.resolve("m.json"))
                .stateRoot(dir).secretStore(store);
        assertEquals(1, host.build().storeReplicas().resolve(null), "one replica unless asked");
        assertEquals(3, host.storeReplicas(ai.cotal.core.stores.StoreReplicas.of(3)).build().storeReplicas().resolve(null));
        assertTrue(host.build().toString().contains("storeReplicas=StoreReplicas[3]"), host.build().toString());
        CotalException none = assertThrows(CotalException.class, () -> host.storeReplicas(null).build());
        assertEquals(ErrorCode.BAD_REQUEST, none.code());
        assertTrue(none.getMessage().startsWith("storeReplicas"), none.getMessage());
    }

    @Test
    void theCalloutHostBuilderRefusesNamingTheOptionAndKeepsTheReplicaDefaults() {
        Map<String, Supplier<Object>> bad = Map.of(
                "manifest", () -> CalloutHost.Options.builder().server("nats://a:4222").stateRoot(dir).secretStore(store)
                        .build(),
                "stateRoot", () -> CalloutHost.Options.builder().server("nats://a:4222").manifest(dir.resolve("m.json"))
                        .secretStore(store).build(),
                "secretStore", () -> CalloutHost.Options.builder().server("nats://a:4222").manifest(dir.resolve("m.json"))
                        .stateRoot(dir).build(),
                "retry", () -> CalloutHost.Options.builder().server("nats://a:4222").manifest(dir.resolve("m.json"))
                        .stateRoot(dir).secretStore(store).retry(Duration.ZERO).build(),
                "onRefusal", () -> CalloutHost.Options.builder().server("nats://a:4222").manifest(dir.resolve("m.json"))
                        .stateRoot(dir).secretStore(store).onRefusal(null).build());
        bad.forEach((option, build) -> {
            CotalException e = assertThrows(CotalException.class, build::get, option);
            assertEquals(ErrorCode.BAD_REQUEST, e.code(), option);
            assertTrue(e.getMessage().startsWith(option), option + ": " + e.getMessage());
        });
        CalloutHost.Options defaults = CalloutHost.Options.builder().server("nats://a:4222").manifest(dir.resolve("m.json"))
                .stateRoot(dir).secretStore(store).build();
        assertEquals(Duration.ofMinutes(15), defaults.ttl());
        assertEquals(Duration.ofSeconds(5), defaults.retry());
        assertFalse(defaults.toString().contains("InMemorySecretStore"), "no store in toString: " + defaults);
    }
}
