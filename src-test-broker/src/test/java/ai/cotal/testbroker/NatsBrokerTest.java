package ai.cotal.testbroker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nats.client.Connection;
import io.nats.client.KeyValue;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.StorageType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Self-tests of the test broker against the real nats-server the project installs. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class NatsBrokerTest {

    private static Connection connect(NatsBroker broker) throws Exception {
        return Nats.connect(new Options.Builder().server(broker.url()).connectionTimeout(Duration.ofSeconds(5))
                .noReconnect().build());
    }

    private static KeyValue bucket(Connection nc) throws Exception {
        nc.keyValueManagement().create(KeyValueConfiguration.builder().name("selftest")
                .storageType(StorageType.File).build());
        return nc.keyValue("selftest");
    }

    @Test
    void runsARecentNatsServerWithJetStream(NatsBroker broker) throws Exception {
        System.out.println("test broker: " + broker + " server id " + broker.serverId());
        assertTrue(broker.version().atLeast(ServerVersion.MINIMUM), "nats-server " + broker.version());
        assertTrue(broker.serverId().startsWith("N"), broker.serverId());
        try (Connection nc = connect(broker)) {
            KeyValue kv = bucket(nc);
            kv.put("greeting", "hello".getBytes(StandardCharsets.UTF_8));
            assertArrayEquals("hello".getBytes(StandardCharsets.UTF_8), kv.get("greeting").getValue());
        }
    }

    @Test
    void killThenRestartKeepsKeyValueData(NatsBroker broker) throws Exception {
        int port = broker.port();
        String firstId = broker.serverId();
        try (Connection nc = connect(broker)) {
            bucket(nc).put("kept", "yes".getBytes(StandardCharsets.UTF_8));
        }
        broker.kill();
        assertTrue(!broker.running(), "broker still running after kill()");
        broker.restart();
        assertEquals(port, broker.port());
        assertNotEquals(firstId, broker.serverId(), "a restarted server announces a new id");
        try (Connection nc = connect(broker)) {
            assertArrayEquals("yes".getBytes(StandardCharsets.UTF_8), nc.keyValue("selftest").get("kept").getValue());
        }
    }

    @Test
    void gracefulStopThenRestartKeepsKeyValueData(NatsBroker broker) throws Exception {
        try (Connection nc = connect(broker)) {
            bucket(nc).put("kept", "graceful".getBytes(StandardCharsets.UTF_8));
        }
        broker.stop();
        broker.restart();
        try (Connection nc = connect(broker)) {
            assertArrayEquals("graceful".getBytes(StandardCharsets.UTF_8),
                    nc.keyValue("selftest").get("kept").getValue());
        }
    }

    @Test
    void reloadAppliesAChangedConfig(NatsBroker broker) throws Exception {
        try (Connection nc = connect(broker)) {
            assertEquals(1024 * 1024, nc.getServerInfo().getMaxPayload());
        }
        broker.reload(NatsBroker.defaultConfig(broker) + "max_payload: 4096\n");
        try (Connection nc = connect(broker)) {
            assertEquals(4096, nc.getServerInfo().getMaxPayload());
        }
        assertTrue(broker.config().contains("4096"));
    }

    @Test
    void reloadRefusedByTheServerIsReported(NatsBroker broker) {
        BrokerException e = assertThrows(BrokerException.class, () -> broker.reload("this is { not a config"));
        assertTrue(e.getMessage().contains("refused") || e.getMessage().contains("reload"), e.getMessage());
    }

    @Test
    void twoBrokersRunSideBySide(NatsBrokers brokers) throws Exception {
        NatsBroker one = brokers.start(NatsBroker::defaultConfig);
        NatsBroker two = brokers.start(NatsBroker::defaultConfig);
        assertNotEquals(one.port(), two.port());
        assertNotEquals(one.serverId(), two.serverId());
        try (Connection a = connect(one); Connection b = connect(two)) {
            bucket(a).put("where", "one".getBytes(StandardCharsets.UTF_8));
            bucket(b).put("where", "two".getBytes(StandardCharsets.UTF_8));
            assertEquals("one", new String(a.keyValue("selftest").get("where").getValue(), StandardCharsets.UTF_8));
            assertEquals("two", new String(b.keyValue("selftest").get("where").getValue(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void configCanNameFilesUnderTheWorkDirectory(NatsBrokers brokers) throws Exception {
        NatsBroker broker = brokers.start(b -> NatsBroker.defaultConfig(b) + "pid_file: \"" + b.workDir().resolve("nats.pid") + "\"\n");
        assertTrue(Files.exists(broker.workDir().resolve("nats.pid")));
    }

    @Test
    void aBinaryOlderThan212IsRefusedWithTheInstallHint(@TempDir Path dir) throws Exception {
        Path fake = dir.resolve("nats-server");
        Files.writeString(fake, "#!/bin/sh\necho 'nats-server: v2.9.10'\n");
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwx------"));
        BrokerException e = assertThrows(BrokerException.class,
                () -> NatsBroker.start("", new BackendChoice(BackendChoice.Kind.LOCAL, fake, null)));
        assertTrue(e.getMessage().contains("2.9.10"), e.getMessage());
        assertTrue(e.getMessage().contains(ServerVersion.INSTALL_HINT), e.getMessage());
    }

    @Test
    void aConfigTheServerRejectsFailsStartWithTheLogTail(NatsBrokers brokers) {
        BrokerException e = assertThrows(BrokerException.class, () -> brokers.start("jetstream: { max_mem: nonsense-value }\n"));
        assertTrue(e.getMessage().contains("log tail"), e.getMessage());
    }
}
