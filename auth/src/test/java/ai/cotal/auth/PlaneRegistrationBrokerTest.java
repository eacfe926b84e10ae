package ai.cotal.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.internal.manager.RestartIdentity;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.InstanceId;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plane's registration as endpoint {@code auth} (SPEC §14.2): a restart identity under the
 * identity root, a gate whose process epoch every open advances, and the fence a later open puts
 * on its predecessor.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class PlaneRegistrationBrokerTest {
    private final PlaneFixture f = new PlaneFixture();

    @TempDir
    Path stateDir;

    @TempDir
    Path identityRoot;

    private static String gate(Connection admin, String instanceId) throws Exception {
        return new String(admin.jetStreamManagement().getLastMessage("KV_cotal_auth_alpha",
                "$KV.cotal_auth_alpha.gate.auth." + instanceId).getData(), StandardCharsets.UTF_8);
    }

    @Test
    void everyOpenOfOneIdentityAdvancesTheEpochAtTheSameRegistration(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        PlaneRegistration first;
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).identityRoot(identityRoot).build())) {
            first = plane.registration();
            assertEquals(1, first.processEpoch());
            assertEquals(first, plane.observeRegistration());
        }
        Path file = RestartIdentity.file(identityRoot, "alpha");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())));
        String stored = Files.readString(file);
        assertTrue(stored.contains(first.instanceId()) && stored.contains(first.serveIdentity()), stored);
        byte[] bytes = Files.readAllBytes(file);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).identityRoot(identityRoot).build());
             Connection admin = f.admin(nats)) {
            PlaneRegistration second = plane.registration();
            assertEquals(first.instanceId(), second.instanceId(), "the restart identity is kept");
            assertEquals(first.registrationRevision(), second.registrationRevision(), "the spec is not rewritten");
            assertEquals(2, second.processEpoch(), "each open advances the epoch");
            String gate = gate(admin, second.instanceId());
            assertTrue(gate.contains("\"state\":\"open\"") && gate.contains("\"processEpoch\":2")
                    && gate.contains("\"principal\":\"auth." + first.serveIdentity() + "\""), gate);
        }
        assertArrayEquals(bytes, Files.readAllBytes(file), "the identity file is never rewritten");
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, Files.createDirectories(identityRoot.resolve("other"))).build())) {
            assertTrue(!plane.registration().instanceId().equals(first.instanceId()),
                    "without an identity root the identity is the secret store's, not this root's file");
        }
    }

    /**
     * Without an identity root the plane's identity is the secret store's {@code AuthInstanceIdentity}
     * ({@code space.<hex>/auth-instance.json}): a plane opened again on a fresh state directory (a
     * hosted plane with no durable directory) is the same instance at the next epoch, and nothing
     * is written under either state directory. A state directory's file from an earlier open is
     * adopted into the store once.
     */
    @Test
    void withoutAnIdentityRootTheIdentityIsTheSecretStoresAndSurvivesAFreshStateDirectory(NatsBrokers brokers)
            throws Exception {
        NatsBroker nats = brokers.start(f::config);
        Path one = Files.createDirectories(stateDir.resolve("one"));
        Path two = Files.createDirectories(stateDir.resolve("two"));
        PlaneRegistration first;
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, one).build())) {
            first = plane.registration();
        }
        ai.cotal.workspace.AuthInstanceIdentity stored = ai.cotal.workspace.AuthInstanceIdentity.load(f.store, "alpha")
                .orElseThrow();
        assertEquals(first.instanceId(), stored.instanceId());
        assertEquals(first.serveIdentity(), stored.serveIdentity());
        assertTrue(!Files.exists(RestartIdentity.file(one, "alpha")), "no identity file in the state directory");
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, two).build())) {
            assertEquals(first.instanceId(), plane.registration().instanceId(), "the same instance from the store");
            assertEquals(2, plane.registration().processEpoch());
        }

        // an earlier plane's state-directory identity is adopted when the store has none
        PlaneFixture g = new PlaneFixture();
        NatsBroker other = brokers.start(g::config);
        Path legacy = Files.createDirectories(stateDir.resolve("legacy"));
        Path file = RestartIdentity.file(legacy, "alpha");
        Files.createDirectories(file.getParent());
        Files.writeString(file, "{\"v\":1,\"space\":\"alpha\",\"instanceId\":\"" + "a".repeat(32)
                + "\",\"serveIdentity\":\"" + "b".repeat(26) + "\"}");
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(g.options(other, legacy).build())) {
            assertEquals("a".repeat(32), plane.registration().instanceId(), "the earlier identity is kept");
        }
        assertEquals("a".repeat(32), ai.cotal.workspace.AuthInstanceIdentity.load(g.store, "alpha").orElseThrow()
                .instanceId(), "and is the store's from now on");
    }

    @Test
    void aLaterOpenFencesItsPredecessorThroughTheEpoch(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        AuthAuthorityPlane first = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
        try {
            assertEquals(1, first.registration().processEpoch());
            // A second open is refused live-peer while the first holds the claim: it writes nothing.
            assertThrows(PlaneClaimRefusal.class, () -> AuthAuthorityPlane.open(f.options(nats, stateDir).build()));
            assertEquals(first.registration(), first.observeRegistration(), "a refused open advanced no epoch");
            // The operator says the first's connections are gone while it still runs (a partition): the
            // second takes the claim over and registers at the next epoch.
            try (AuthAuthorityPlane second = AuthAuthorityPlane.open(f.options(nats, stateDir)
                    .livenessOracle(PlaneFixture.operatorSaysGone()).build())) {
                assertEquals(first.registration().instanceId(), second.registration().instanceId());
                assertEquals(2, second.registration().processEpoch());
                assertTrue(!first.fenced().isDone(), "nothing has observed the gate yet");

                CotalException fenced = assertThrows(CotalException.class, first::observeRegistration);
                assertEquals(ErrorCode.FAILED_PRECONDITION, fenced.code());
                assertTrue(fenced.getMessage().contains("was fenced: a later plane registered auth instance "
                        + second.registration().instanceId() + " at process epoch 2 (this plane's is 1)"),
                        fenced.getMessage());
                assertTrue(first.fenced().get(5, TimeUnit.SECONDS).contains("process epoch 2"));
                assertEquals(ErrorCode.UNAVAILABLE, assertThrows(CotalException.class,
                        () -> first.credentials().list()).code(), "the fenced predecessor refuses everything");
                assertEquals(ErrorCode.UNAVAILABLE, assertThrows(CotalException.class,
                        () -> first.managers().freezeGate(new InstanceId("abcdefghijklmnopqrstuvwxyz"))).code());
                assertEquals(second.registration(), second.observeRegistration(), "the successor is still current");
            }
        } finally {
            assertThrows(PlaneClaimRefusal.class, first::close, "the claim is the successor's now");
        }
    }

    @Test
    void aCorruptIdentityFailsTheOpenAndIsNeverReplaced(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        Path file = RestartIdentity.file(stateDir, "alpha");
        Files.createDirectories(file.getParent());
        Files.writeString(file, "{\"v\":1,\"space\":\"alpha\",\"instanceId\":\"nothex\",\"serveIdentity\":\"x\"}");
        CotalException refused = assertThrows(CotalException.class,
                () -> AuthAuthorityPlane.open(f.options(nats, stateDir).build()));
        assertEquals(ErrorCode.DATA_LOSS, refused.code());
        assertTrue(refused.getMessage().contains("never replaced"), refused.getMessage());
        assertTrue(Files.readString(file).contains("nothex"));
        Files.delete(file);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build())) {
            assertEquals(1, plane.registration().processEpoch(), "the claim was released by the failed open's unwind");
        }
    }
}
