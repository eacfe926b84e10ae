package ai.cotal.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.workspace.CotalRoot;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code cotal-auth serve}: the flags reach the one space's plane and service, and {@code --store-replicas} and {@code --ledger} every host lane. */
class ServeTest {
    private static final ai.cotal.core.trust.SpaceSigner SIGNER = ai.cotal.core.trust.SpaceAuth.create("alpha",
            java.time.Clock.systemUTC()).strip();
    private static final String SERVER = "nats://127.0.0.1:4222";
    private final InMemorySecretStore secrets = new InMemorySecretStore();

    @TempDir
    Path root;

    private Map<String, List<String>> flags(String... args) {
        List<String> all = new ArrayList<>(List.of("--server", SERVER, "--root", root.toString()));
        all.addAll(List.of(args));
        return Serve.parse(all);
    }

    @Test
    void storeReplicasReachTheServiceAndTheHostOneUnlessGiven() {
        Map<String, List<String>> single = flags("--space", "alpha", "--store-replicas", "3");
        assertEquals(3, Serve.laneOptions(single, root, secrets, Serve.storeReplicas(single)).signer(SIGNER).build().storeReplicas()
                .resolve(null));
        Map<String, List<String>> multi = flags("--spaces", "m.json", "--store-replicas", "5");
        assertEquals(5, Serve.hostOptions(multi, root, secrets, Serve.storeReplicas(multi)).storeReplicas().resolve(null));
        Map<String, List<String>> unset = flags("--space", "alpha");
        assertEquals(1, Serve.laneOptions(unset, root, secrets, Serve.storeReplicas(unset)).signer(SIGNER).build().storeReplicas()
                .resolve(null));
    }

    @Test
    void thePortAndTheOidcPinReachTheServiceAndTheStoreReachesThePlane() {
        Map<String, List<String>> given = flags("--space", "alpha", "--port", "4100", "--oidc-issuer",
                "https://kc.example.com/realms/acme", "--oidc-client-id", "cotal-space");
        ai.cotal.auth.service.AuthServiceOptions service = Serve.serviceOptions(given);
        assertEquals(4100, service.loopbackPort());
        assertEquals("https://kc.example.com/realms/acme", service.oidc().orElseThrow().issuer());
        assertEquals(0, Serve.serviceOptions(flags("--space", "alpha")).loopbackPort(), "an ephemeral port unless given");
        ai.cotal.auth.AuthPlaneOptions plane = Serve.laneOptions(given, root, secrets, Serve.storeReplicas(given))
                .signer(SIGNER).build();
        assertEquals(List.of(SERVER), plane.servers());
        assertEquals(CotalRoot.userAuthStateDir(root, "alpha"), plane.stateDir());
        assertSame(secrets, plane.secretStore(), "the root's store");
    }

    @Test
    void thePublicFaceReachesTheServiceAndABadOneOrOneWithSpacesIsRefused() {
        assertEquals(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 8443),
                Serve.serviceOptions(flags("--space", "alpha", "--public", "8443")).publicAddress().orElseThrow());
        assertTrue(Serve.serviceOptions(flags("--space", "alpha")).publicAddress().isEmpty(), "no public face unless given");
        for (List<String> args : List.of(
                List.of("--space", "alpha", "--public", "host.example:80"),
                List.of("--space", "alpha", "--public", "70000"),
                List.of("--spaces", "m.json", "--public", "8443"),
                List.of("--space", "alpha", "--public", "8443", "--public", "8444"))) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            List<String> all = new ArrayList<>(args);
            all.addAll(List.of("--server", SERVER, "--root", root.toString()));
            assertEquals(2, Serve.run(all, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8), CompletableFuture.completedFuture(null)), args.toString());
            assertTrue(err.toString(StandardCharsets.UTF_8).contains("--public"), err.toString(StandardCharsets.UTF_8));
        }
    }

    @Test
    void anyOtherCountIsRefusedBeforeAnythingStarts() {
        for (List<String> replicas : List.of(List.of("2"), List.of("auto"), List.of("3", "--store-replicas", "3"))) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            List<String> args = new ArrayList<>(List.of("--space", "alpha", "--server", SERVER, "--root", root.toString(),
                    "--store-replicas"));
            args.addAll(replicas);
            assertEquals(2, Serve.run(args, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8), CompletableFuture.completedFuture(null)), replicas.toString());
            assertTrue(err.toString(StandardCharsets.UTF_8).contains("--store-replicas must be given once: 1, 3 or 5"),
                    err.toString(StandardCharsets.UTF_8));
        }
    }

    @Test
    void aGrantPolicyFileReachesTheServiceAndABadOneRefusesTheStartNamingTheField() throws Exception {
        Path policy = root.resolve("policy.json");
        java.nio.file.Files.writeString(policy, "{\"rules\":[{\"name\":\"staff\",\"when\":{\"group\":\"/staff\"},"
                + "\"actors\":[\"laptop\"]}]}");
        ai.cotal.auth.service.AuthServiceOptions service = Serve.serviceOptions(flags("--space", "alpha", "--grant-policy",
                policy.toString()));
        assertEquals("staff", service.grantPolicy().orElseThrow().rules().get(0).name());
        assertTrue(Serve.serviceOptions(flags("--space", "alpha")).grantPolicy().isEmpty());

        java.nio.file.Files.writeString(policy, "{\"rules\":[{\"name\":\"staff\",\"when\":{\"group\":\"/staff\"},"
                + "\"actors\":[]}]}");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        assertEquals(1, Serve.run(List.of("--space", "alpha", "--server", SERVER, "--root", root.toString(), "--grant-policy",
                policy.toString()), quiet, new PrintStream(err, true, StandardCharsets.UTF_8),
                CompletableFuture.completedFuture(null)));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("grantPolicy.rules[0].actors:"), err.toString(StandardCharsets.UTF_8));

        err.reset();
        assertEquals(2, Serve.run(List.of("--spaces", "m.json", "--server", SERVER, "--root", root.toString(), "--grant-policy",
                policy.toString()), quiet, new PrintStream(err, true, StandardCharsets.UTF_8),
                CompletableFuture.completedFuture(null)));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("give each space's grantPolicy in the manifest"),
                err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void theLedgerFlagReachesThePlaneAndEveryHostLaneFilesUnlessGiven() {
        Map<String, List<String>> single = flags("--space", "alpha", "--ledger", "store");
        assertEquals("store", Serve.laneOptions(single, root, secrets, Serve.storeReplicas(single)).signer(SIGNER).build()
                .ledger().name());
        Map<String, List<String>> multi = flags("--spaces", "m.json", "--ledger", "store");
        assertEquals("store", Serve.hostOptions(multi, root, secrets, Serve.storeReplicas(multi)).ledger().name());
        Map<String, List<String>> unset = flags("--space", "alpha");
        assertEquals("files", Serve.laneOptions(unset, root, secrets, Serve.storeReplicas(unset)).signer(SIGNER).build()
                .ledger().name());
        for (List<String> ledger : List.of(List.of("jetstream"), List.of("store", "--ledger", "store"))) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            List<String> args = new ArrayList<>(List.of("--space", "alpha", "--server", SERVER, "--root", root.toString(),
                    "--ledger"));
            args.addAll(ledger);
            assertEquals(2, Serve.run(args, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8), CompletableFuture.completedFuture(null)), ledger.toString());
            assertTrue(err.toString(StandardCharsets.UTF_8).contains("--ledger must be given once: files or store"),
                    err.toString(StandardCharsets.UTF_8));
        }
    }
}
