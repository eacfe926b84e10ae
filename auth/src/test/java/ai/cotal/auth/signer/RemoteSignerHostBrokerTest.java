package ai.cotal.auth.signer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.Grant;
import ai.cotal.auth.service.AuthHost;
import ai.cotal.auth.service.AuthService;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.Principal;
import ai.cotal.core.keys.InMemoryAccountSigner;
import ai.cotal.core.keys.NKeyPair;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.signer.SignerPolicy;
import ai.cotal.signer.SignerServer;
import ai.cotal.signer.UnixSocketAccountSigner;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.workspace.SecretKeys;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * SPEC §13.19 / §16.4 on a multi-space host: a manifest entry's {@code signerSocket} makes its lane
 * sign through that space's remote signer, with no seed in the host's store or process; a signer
 * of another space keeps the lane from starting.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class RemoteSignerHostBrokerTest {
    @TempDir
    Path dir;

    private AuthHost.Options options(NatsBroker nats, RemoteSpace space, Path manifest) {
        return AuthHost.Options.builder().server(nats.url()).manifest(manifest).stateRoot(dir.resolve("state"))
                .secretStore(space.serviceStore).clock(space.clock).build();
    }

    @Test
    void aHostLaneSignsThroughTheSignerItsManifestNamesWithNoSeedInTheHostsStoreOrProcess(NatsBrokers brokers)
            throws Exception {
        RemoteSpace space = new RemoteSpace(dir);
        NatsBroker nats = brokers.start(space::config);
        Path manifest = dir.resolve("spaces.json");
        Files.writeString(manifest, "{\"ver\":1,\"spaces\":[{\"space\":\"alpha\",\"signerSocket\":\"" + space.socket + "\"}]}");
        try (SignerServer signer = space.startSigner(SignerPolicy.stock("alpha", space.auth.account().accountPublicKey()));
             AuthHost host = AuthHost.start(options(nats, space, manifest))) {
            AuthService lane = host.lanes().get("alpha");
            assertEquals(AuthService.State.READY, lane.state());
            lane.plane().ledger().grantActor(Principal.of("u_abcdefghijklmnopqrstuvwxyz", "laptop"),
                    Grant.of(List.of(), List.of(), List.of()));
            assertTrue(space.serviceStore.get(SecretKeys.serviceKeysKey("alpha")).isEmpty(), "no seed in the host's store");
            String signingKey = space.auth.account().signing().publicKey();
            assertTrue(SeedReach.find(host, o -> o instanceof UnixSocketAccountSigner).isPresent(),
                    "the walk reaches the lane's signer client (a control for the search below)");
            assertEquals(Optional.empty(), SeedReach.find(host, o -> o instanceof InMemoryAccountSigner
                    || o instanceof SpaceAuth || o instanceof SpaceAccountAuth
                    || o instanceof NKeyPair k && k.publicKey().equals(signingKey)),
                    "no key pair of the data account's signing key is reachable from the running host");
        }
        Set<String> signed = space.auditLines().stream().filter(l -> l.path("event").asText().equals("signed"))
                .map(l -> l.path("profile").asText()).collect(Collectors.toSet());
        assertTrue(signed.containsAll(Set.of("auth-mint", "auth-reader", "auth-barrier",
                "auth-issuer", "auth-scan", "records-scan", "auth-admin")), signed.toString());
        for (JsonNode line : space.auditLines()) {
            assertFalse(line.toString().contains(space.auth.account().signing().seed()), "no seed in the audit log");
        }
    }

    @Test
    void aCalloutHostLaneSignsThroughTheSignerItsManifestNamesAndIsRefusedWithoutIt(NatsBrokers brokers) throws Exception {
        RemoteSpace space = new RemoteSpace(dir);
        NatsBroker nats = brokers.start(space::config);
        Path manifest = dir.resolve("spaces.json");
        Files.writeString(manifest, "{\"ver\":1,\"spaces\":[{\"space\":\"alpha\",\"signerSocket\":\"" + space.socket + "\"}]}");
        Path replicas = dir.resolve("replicas.json");
        try (SignerServer signer = space.startSigner(SignerPolicy.stock("alpha", space.auth.account().accountPublicKey()));
             AuthHost host = AuthHost.start(options(nats, space, manifest))) { // the plane: its ledger is the replicas'
            Files.writeString(replicas, "{\"ver\":1,\"spaces\":[{\"space\":\"alpha\"}]}");
            try (ai.cotal.auth.service.CalloutHost without = ai.cotal.auth.service.CalloutHost.start(calloutOptions(nats,
                    space, replicas))) {
                assertEquals(Set.of(), without.serving(), "no seed in the store and no signer named: refused");
                assertTrue(without.refused().get("alpha").contains(SecretKeys.serviceKeysKey("alpha")),
                        without.refused().toString());
            }
            Files.copy(manifest, replicas, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            try (ai.cotal.auth.service.CalloutHost replica = ai.cotal.auth.service.CalloutHost.start(calloutOptions(nats,
                    space, replicas))) {
                assertEquals(Set.of("alpha"), replica.serving(), replica.refused().toString());
                String signingKey = space.auth.account().signing().publicKey();
                assertTrue(SeedReach.find(replica, o -> o instanceof UnixSocketAccountSigner).isPresent(),
                        "the walk reaches the replica's signer client (a control for the search below)");
                assertEquals(Optional.empty(), SeedReach.find(replica, o -> o instanceof InMemoryAccountSigner
                        || o instanceof NKeyPair k && k.publicKey().equals(signingKey)),
                        "no key pair of the data account's signing key is reachable from the replica");
            }
            // the same without a manifest: a CalloutReplica given the space's signer socket
            Path stateDir = dir.resolve("state").resolve(SecretKeys.spaceSegment("alpha"));
            try (ai.cotal.auth.service.CalloutReplica replica = ai.cotal.auth.service.CalloutReplica.start(
                    ai.cotal.auth.service.CalloutReplica.Options.builder().server(nats.url())
                            .stateDirs(java.util.Map.of("alpha", stateDir)).signerSockets(java.util.Map.of("alpha", space.socket))
                            .secrets(space.serviceStore).clock(space.clock).build())) {
                assertEquals(Set.of("alpha"), replica.serving(), replica.refused().toString());
            }
            CotalException stray = assertThrows(CotalException.class, () -> ai.cotal.auth.service.CalloutReplica.Options
                    .builder().server(nats.url()).stateDirs(java.util.Map.of("alpha", stateDir))
                    .signerSockets(java.util.Map.of("beta", space.socket)).secrets(space.serviceStore).build());
            assertEquals("signerSockets: each names a space of stateDirs and its socket", stray.getMessage());
            CotalException relative = assertThrows(CotalException.class, () -> ai.cotal.auth.service.CalloutReplica.Options
                    .builder().server(nats.url()).stateDirs(java.util.Map.of("alpha", stateDir))
                    .signerSockets(java.util.Map.of("alpha", Path.of("alpha.sock"))).secrets(space.serviceStore).build());
            assertTrue(relative.getMessage().startsWith("signerSockets.alpha: must be an absolute"), relative.getMessage());
        }
    }

    private static ai.cotal.auth.service.CalloutHost.Options calloutOptions(NatsBroker nats, RemoteSpace space,
            Path manifest) {
        return ai.cotal.auth.service.CalloutHost.Options.builder().server(nats.url()).manifest(manifest)
                .stateRoot(manifest.resolveSibling("state")).secretStore(space.serviceStore).clock(space.clock).build();
    }

    @Test
    void aLaneWhoseSignerSignsForAnotherSpaceDoesNotStartAndTheManifestGrammarIsChecked(NatsBrokers brokers)
            throws Exception {
        RemoteSpace space = new RemoteSpace(dir);
        NatsBroker nats = brokers.start(space::config);
        Path manifest = dir.resolve("spaces.json");
        Files.writeString(manifest, "{\"ver\":1,\"spaces\":[{\"space\":\"beta\",\"signerSocket\":\"" + space.socket + "\"}]}");
        try (SignerServer signer = space.startSigner(SignerPolicy.stock("alpha", space.auth.account().accountPublicKey()))) {
            CotalException wrong = assertThrows(CotalException.class, () -> AuthHost.start(options(nats, space, manifest)));
            assertEquals(ErrorCode.FAILED_PRECONDITION, wrong.code());
            assertEquals("lane beta: the signer at its signerSocket signs for space 'alpha'", wrong.getMessage());
        }
        for (String bad : List.of("\"relative/alpha.sock\"", "\"/a/../alpha.sock\"", "\"/" + "s".repeat(107) + "\"", "\"\"",
                "7")) {
            CotalException refused = assertThrows(CotalException.class, () -> AuthHost.parseAuthHostManifest(
                    "{\"ver\":1,\"spaces\":[{\"space\":\"alpha\",\"signerSocket\":" + bad + "}]}"));
            assertEquals(ErrorCode.BAD_REQUEST, refused.code());
            assertTrue(refused.getMessage().contains("signerSocket"), bad + ": " + refused.getMessage());
        }
        assertEquals(space.socket, AuthHost.parseAuthHostManifest("{\"ver\":1,\"spaces\":[{\"space\":\"alpha\","
                + "\"signerSocket\":\"" + space.socket + "\"}]}").spaces().get(0).signerSocket());
    }
}
