package ai.cotal.workspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.secrets.SecretStoreIdentity;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSecretStoreTest {
    @TempDir
    Path root;

    private static String mode(Path path) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
    }

    @Test
    void filesAre0600InDirectories0700() throws Exception {
        FileSecretStore store = new FileSecretStore(root);
        store.putText(SecretKeys.deliveryCredsKey("alpha"), "creds");
        Path file = root.resolve(".cotal").resolve(SecretKeys.deliveryCredsKey("alpha"));
        assertEquals("rw-------", mode(file));
        assertEquals("rwx------", mode(file.getParent()));
        assertEquals("rwx------", mode(root.resolve(".cotal")));
        assertEquals("creds", store.getText(SecretKeys.deliveryCredsKey("alpha")).orElseThrow());
    }

    @Test
    void getIsEmptyOnlyWhenAbsentAndDeleteIsIdempotent() {
        FileSecretStore store = new FileSecretStore(root);
        assertEquals(Optional.empty(), store.get("auth/broker.json"));
        store.put("auth/broker.json", new byte[] {1});
        store.delete("auth/broker.json");
        store.delete("auth/broker.json");
        assertEquals(Optional.empty(), store.get("auth/broker.json"));
    }

    @Test
    void everyTraversalAttemptIsRefused() throws Exception {
        FileSecretStore store = new FileSecretStore(root);
        for (String key : new String[] {"../x", "a/../../x", "/etc/passwd", "a\u0000b", "", ".", "a//b"}) {
            assertThrows(CotalException.class, () -> store.put(key, new byte[] {1}), key);
            assertThrows(CotalException.class, () -> store.get(key), key);
        }
        Path outside = Files.createDirectory(root.resolve("outside"));
        Files.writeString(outside.resolve("secret"), "outside");
        Files.createDirectories(root.resolve(".cotal"));
        Files.createSymbolicLink(root.resolve(".cotal/link"), outside);
        assertThrows(CotalException.class, () -> store.get("link/secret"));
        assertThrows(CotalException.class, () -> store.put("link/secret", new byte[] {1}));
        assertEquals("outside", Files.readString(outside.resolve("secret")), "nothing written through the link");
        Files.createSymbolicLink(root.resolve(".cotal/file-link"), outside.resolve("secret"));
        assertThrows(CotalException.class, () -> store.get("file-link"));
        assertThrows(CotalException.class, () -> store.put("file-link", new byte[] {1}));
        assertEquals("outside", Files.readString(outside.resolve("secret")));
    }

    @Test
    void spacesThatDifferOnlyInCaseGetDistinctKeysAndFiles() throws Exception {
        FileSecretStore store = new FileSecretStore(root);
        store.putText(SecretKeys.deliveryCredsKey("alpha"), "lower");
        store.putText(SecretKeys.deliveryCredsKey("Alpha"), "upper");
        assertEquals("space.616c706861/delivery.creds", SecretKeys.deliveryCredsKey("alpha"));
        assertEquals("space.416c706861/delivery.creds", SecretKeys.deliveryCredsKey("Alpha"));
        assertEquals("lower", store.getText(SecretKeys.deliveryCredsKey("alpha")).orElseThrow());
        assertEquals("upper", store.getText(SecretKeys.deliveryCredsKey("Alpha")).orElseThrow());
        assertTrue(Files.exists(root.resolve(".cotal/space.416c706861/delivery.creds")));
        assertThrows(CotalException.class, () -> SecretKeys.spaceKey(".."));
        assertThrows(CotalException.class, () -> SecretKeys.spaceKey(""));
        assertThrows(CotalException.class, () -> SecretKeys.spaceKey("a\uD800"));
        assertEquals("f09f9880", SecretKeys.spaceKey("\uD83D\uDE00"));
    }

    @Test
    void twoThreadsWritingOneKeyNeverLeaveATornValue() throws Exception {
        FileSecretStore store = new FileSecretStore(root);
        byte[] a = "A".repeat(64 * 1024).getBytes(StandardCharsets.UTF_8);
        byte[] b = "B".repeat(64 * 1024).getBytes(StandardCharsets.UTF_8);
        store.put("race/key", a);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(2);
        for (byte[] value : new byte[][] {a, b}) {
            new Thread(() -> {
                try {
                    for (int i = 0; i < 200; i++) {
                        store.put("race/key", value);
                    }
                } catch (Throwable t) {
                    failure.set(t);
                } finally {
                    done.countDown();
                }
            }).start();
        }
        while (done.getCount() > 0) {
            byte[] read = store.get("race/key").orElseThrow();
            assertTrue(java.util.Arrays.equals(read, a) || java.util.Arrays.equals(read, b), "torn read of " + read.length + " bytes");
        }
        assertTrue(done.await(30, TimeUnit.SECONDS));
        assertEquals(null, failure.get());
        try (var files = Files.list(root.resolve(".cotal/race"))) {
            assertEquals(1, files.count(), "no temp files left behind");
        }
    }

    @Test
    void createIsCreateOnlyAndOfRacingCreatorsExactlyOneWins() throws Exception {
        FileSecretStore store = new FileSecretStore(root);
        assertTrue(store.create("space.61/owner-secret.json", new byte[] {1}));
        assertFalse(store.create("space.61/owner-secret.json", new byte[] {2}), "an existing key is never replaced");
        assertArrayEquals(new byte[] {1}, store.get("space.61/owner-secret.json").orElseThrow());
        assertEquals("rw-------", mode(root.resolve(".cotal/space.61/owner-secret.json")));
        int racers = 8;
        java.util.concurrent.atomic.AtomicInteger winners = new java.util.concurrent.atomic.AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(racers);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int i = 0; i < racers; i++) {
            byte[] value = ("racer-" + i).getBytes(StandardCharsets.UTF_8);
            new Thread(() -> {
                try {
                    start.await();
                    if (store.create("race/once", value)) {
                        winners.incrementAndGet();
                    }
                } catch (Throwable t) {
                    failure.set(t);
                } finally {
                    done.countDown();
                }
            }).start();
        }
        start.countDown();
        assertTrue(done.await(30, TimeUnit.SECONDS));
        assertEquals(null, failure.get());
        assertEquals(1, winners.get(), "exactly one creator wins");
        assertTrue(new String(store.get("race/once").orElseThrow(), StandardCharsets.UTF_8).startsWith("racer-"));
        try (var files = Files.list(root.resolve(".cotal/race"))) {
            assertEquals(1, files.count(), "no temp files left behind");
        }
    }

    @Test
    void twoProcessesWritingOneKeyNeverLeaveATornValue() throws Exception {
        FileSecretStore store = new FileSecretStore(root);
        store.put("race/key", ConcurrentWriter.value('C'));
        Process[] writers = new Process[2];
        for (int i = 0; i < 2; i++) {
            writers[i] = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                    System.getProperty("java.class.path"), ConcurrentWriter.class.getName(), root.toString(),
                    String.valueOf((char) ('D' + i)), "200").redirectErrorStream(true).start();
        }
        while (writers[0].isAlive() || writers[1].isAlive()) {
            byte[] read = store.get("race/key").orElseThrow();
            char first = (char) read[0];
            assertArrayEquals(ConcurrentWriter.value(first), read, "torn read");
        }
        for (Process writer : writers) {
            assertEquals(0, writer.waitFor(), new String(writer.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void identityIsTheRoot() {
        FileSecretStore one = new FileSecretStore(root);
        FileSecretStore two = new FileSecretStore(root.resolve("x").resolve(".."));
        assertEquals(Optional.of(SecretStoreIdentity.fs(root.toAbsolutePath().normalize().toString())), one.identity());
        assertTrue(SecretStoreIdentity.sameIdentity(one, two));
        assertFalse(SecretStoreIdentity.sameIdentity(one, new FileSecretStore(root.resolve("other"))));
    }
}
