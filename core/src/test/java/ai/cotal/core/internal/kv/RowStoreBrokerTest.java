package ai.cotal.core.internal.kv;

import static ai.cotal.core.BrokerClients.config;
import static ai.cotal.core.BrokerClients.connect;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.BrokerClients;
import ai.cotal.core.BrokerClients.Client;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.api.KeyValueConfiguration;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A last-message read sent ahead ({@code sendLast}, then {@code awaitLast}) against the real broker. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class RowStoreBrokerTest {
    private final Clock clock = Clock.systemUTC();
    private final BrokerAuth broker = BrokerAuth.create("rows", clock);
    private final SpaceAccountAuth space = SpaceAccountAuth.create(broker, "alpha", clock);

    @Test
    void aReadSentAheadAnswersWhatTheReadInPlaceAnswers(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> config(b, broker, List.of(space), List.of()));
        try (Client client = connect(nats, BrokerClients.unrestricted(space))) {
            client.connection().keyValueManagement().create(KeyValueConfiguration.builder().name("rows").build());
            RowStore rows = new RowStore(client.connection(), "rows");
            byte[] data = "{\"v\":1}".getBytes(StandardCharsets.UTF_8);
            long revision = rows.create("a", data).orElseThrow();
            RowStore.PendingRead a = rows.sendLast("a");
            RowStore.PendingRead missing = rows.sendLast("missing");
            RowStore.Row row = rows.awaitLast(a).orElseThrow();
            assertEquals(revision, row.revision());
            assertArrayEquals(data, row.data());
            assertEquals(rows.last("a").orElseThrow().revision(), row.revision());
            assertTrue(rows.awaitLast(missing).isEmpty(), "no message: absent, as last() says");
            assertTrue(rows.last("missing").isEmpty());

            long moved = rows.compareAndSet("a", "{\"v\":2}".getBytes(StandardCharsets.UTF_8), revision).orElseThrow();
            assertEquals(moved, rows.awaitLast(rows.sendLast("a")).orElseThrow().revision(), "the last message, not the first");

            client.connection().keyValue("rows").delete("a");
            CotalException ahead = assertThrows(CotalException.class, () -> rows.awaitLast(rows.sendLast("a")));
            CotalException inPlace = assertThrows(CotalException.class, () -> rows.last("a"));
            assertEquals(ErrorCode.DATA_LOSS, ahead.code(), "a delete marker where a row belongs is corruption");
            assertEquals(inPlace.code(), ahead.code());
            assertEquals(inPlace.getMessage(), ahead.getMessage());
        }
    }

    @Test
    void aReadSentOnAClosedConnectionFailsAsTheReadInPlaceDoes(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> config(b, broker, List.of(space), List.of()));
        Client client = connect(nats, BrokerClients.unrestricted(space));
        client.connection().keyValueManagement().create(KeyValueConfiguration.builder().name("rows").build());
        RowStore rows = new RowStore(client.connection(), "rows");
        client.close();
        RowStore.PendingRead read = rows.sendLast("a"); // nothing sent: taken by last() when awaited
        CotalException ahead = assertThrows(CotalException.class, () -> rows.awaitLast(read));
        CotalException inPlace = assertThrows(CotalException.class, () -> rows.last("a"));
        assertEquals(ErrorCode.UNAVAILABLE, ahead.code());
        assertEquals(inPlace.code(), ahead.code());
    }

    @Test
    void entriesNameTheirOperationAndADeleteIsACompareAndSet(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> config(b, broker, List.of(space), List.of()));
        try (Client client = connect(nats, BrokerClients.unrestricted(space))) {
            client.connection().keyValueManagement().create(KeyValueConfiguration.builder().name("rows").build());
            RowStore rows = new RowStore(client.connection(), "rows");
            assertTrue(rows.lastEntry("a").isEmpty(), "no message: empty");
            assertTrue(rows.awaitEntry(rows.sendLast("a")).isEmpty());
            byte[] data = "{\"v\":1}".getBytes(StandardCharsets.UTF_8);
            long revision = rows.create("a", data).orElseThrow();
            RowStore.Entry put = rows.lastEntry("a").orElseThrow();
            assertEquals(RowStore.Op.PUT, put.op());
            assertEquals(revision, put.revision());
            assertArrayEquals(data, put.data());
            assertEquals(RowStore.Op.PUT, rows.awaitEntry(rows.sendLast("a")).orElseThrow().op());

            assertTrue(rows.delete("a", revision - 1).isEmpty(), "a delete at another revision writes nothing");
            assertEquals(RowStore.Op.PUT, rows.lastEntry("a").orElseThrow().op());
            long deleted = rows.delete("a", revision).orElseThrow();
            RowStore.Entry marker = rows.lastEntry("a").orElseThrow();
            assertEquals(RowStore.Op.DELETE, marker.op(), "our delete is a KV delete marker");
            assertEquals(deleted, marker.revision());
            assertEquals(RowStore.Op.DELETE, rows.awaitEntry(rows.sendLast("a")).orElseThrow().op());
            assertTrue(client.connection().keyValue("rows").get("a") == null, "the KV client reads it as deleted");

            client.connection().keyValue("rows").put("b", data);
            client.connection().keyValue("rows").purge("b");
            assertEquals(RowStore.Op.OTHER, rows.lastEntry("b").orElseThrow().op(), "a purge marker is another marker");
            assertEquals(RowStore.Op.OTHER, rows.awaitEntry(rows.sendLast("b")).orElseThrow().op());
        }
    }
}
