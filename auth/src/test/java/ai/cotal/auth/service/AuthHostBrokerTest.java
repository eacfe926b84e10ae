package ai.cotal.auth.service;

import ai.cotal.auth.SpaceProvisioning;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.workspace.SecretKeys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** A two-space host: per-lane reopen, the applied file, and a malformed manifest that changes nothing. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class AuthHostBrokerTest {
    private final Clock clock = Clock.systemUTC();
    private final BrokerAuth broker = BrokerAuth.create("host", clock);
    private final SpaceAccountAuth alpha = SpaceAccountAuth.create(broker, "alpha", clock);
    private final SpaceAccountAuth beta = SpaceAccountAuth.create(broker, "beta", clock);
    private final InMemorySecretStore store = new InMemorySecretStore();

    @TempDir
    Path root;

    private NatsBroker provision(NatsBrokers brokers) {
        List<String> callouts = new java.util.ArrayList<>();
        for (SpaceAccountAuth account : List.of(alpha, beta)) {
            SpaceAuth auth = new SpaceAuth(broker, account);
            CalloutAuth callout = CalloutAuth.create(auth.account().space(), broker, account.accountPublicKey(), clock);
            callouts.add(callout.jwt());
            SpaceProvisioning.forSpace(auth, callout).write(store);
        }
        return brokers.start(b -> ServerConfig.render(broker, List.of(alpha, beta), ServerConfigOptions.builder()
                .transport(Transport.plaintext()).storeDir(b.storeDir()).extraAccounts(callouts).build()));
    }

    private static String manifest(boolean betaEndpoints) {
        return "{\"ver\":1,\"spaces\":[{\"space\":\"alpha\",\"serviceEndpoints\":true},{\"space\":\"beta\","
                + "\"serviceEndpoints\":" + betaEndpoints + "}]}";
    }

    @Test
    void togglingOneLaneReopensOnlyThatLaneAndAMalformedManifestChangesNothing(NatsBrokers brokers) throws Exception {
        NatsBroker nats = provision(brokers);
        Path file = root.resolve("spaces.json");
        Files.writeString(file, manifest(false));
        try (AuthHost host = AuthHost.start(AuthHost.Options.builder().server(nats.url()).manifest(file)
                .stateRoot(root.resolve("state")).secretStore(store).clock(clock).build())) {
            AuthService alphaLane = host.lanes().get("alpha");
            AuthService betaLane = host.lanes().get("beta");
            assertTrue(alphaLane.plane().serviceEndpoints().isPresent());
            assertFalse(betaLane.plane().serviceEndpoints().isPresent());
            assertArrayEquals(Files.readAllBytes(file), Files.readAllBytes(host.appliedFile()));
            assertTrue(Files.exists(root.resolve("state").resolve(SecretKeys.spaceSegment("alpha"))
                    .resolve("auth-service.json")), "a lane's state lives under its encoded segment, never the raw name");

            Files.writeString(file, manifest(true));
            host.apply();
            assertSame(alphaLane, host.lanes().get("alpha"), "the unchanged lane kept running");
            AuthService reopened = host.lanes().get("beta");
            assertNotSame(betaLane, reopened, "the toggled lane was reopened");
            assertEquals(AuthService.State.CLOSED, betaLane.state());
            assertTrue(reopened.plane().serviceEndpoints().isPresent());
            assertEquals(2, reopened.plane().claim().generation(), "the new lane took the released claim");
            assertArrayEquals(Files.readAllBytes(file), Files.readAllBytes(host.appliedFile()), "the applied file follows");

            byte[] applied = Files.readAllBytes(host.appliedFile());
            Files.writeString(file, "{\"ver\":1,\"spaces\":[{\"space\":\"alpha\"},{\"space\":\"alpha\"}]}");
            CotalException refused = assertThrows(CotalException.class, host::apply);
            assertEquals(ErrorCode.BAD_REQUEST, refused.code());
            assertTrue(refused.getMessage().contains("spaces[1].space"), refused.getMessage());
            assertSame(alphaLane, host.lanes().get("alpha"));
            assertSame(reopened, host.lanes().get("beta"));
            assertEquals(AuthService.State.READY, reopened.state());
            assertArrayEquals(applied, Files.readAllBytes(host.appliedFile()), "the applied file is unchanged");
        }
    }

    @Test
    void theParserRefusesEveryOutOfShapeManifest() {
        for (String bad : List.of("", "[]", "{\"ver\":2,\"spaces\":[{\"space\":\"a\"}]}", "{\"ver\":1,\"spaces\":[]}",
                "{\"ver\":1,\"spaces\":[{\"space\":\" \"}]}", "{\"ver\":1,\"spaces\":[{\"space\":\"a\",\"x\":1}]}",
                "{\"ver\":1,\"spaces\":[{\"space\":\"a\",\"serviceEndpoints\":\"yes\"}]}",
                "{\"ver\":1,\"spaces\":[{\"space\":\"a\"}],\"serviceEndpoints\":true}")) {
            CotalException e = assertThrows(CotalException.class, () -> AuthHost.parseAuthHostManifest(bad), bad);
            assertEquals(ErrorCode.BAD_REQUEST, e.code(), bad);
        }
        AuthHostManifest ok = AuthHost.parseAuthHostManifest(manifest(true));
        assertEquals(List.of(new AuthHostManifest.Entry("alpha", true), new AuthHostManifest.Entry("beta", true)),
                ok.spaces());
    }
}
