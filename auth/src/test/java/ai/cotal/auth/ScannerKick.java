package ai.cotal.auth;

import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.creds.Creds;
import ai.cotal.testbroker.NatsBroker;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Finds a connection of a data account by name through CONNZ and has the broker KICK it. */
public final class ScannerKick {
    private ScannerKick() {
    }

    /** The ledger scanner's connection name in {@code space}. */
    public static String ledgerScanner(String space) {
        return "cotal:auth-scan:" + space;
    }

    /**
     * Kicks the connection named {@code name} in {@code account}: CONNZ through {@code observer}
     * (a membership-observer credential), KICK through {@code evictor}. Returns the kicked cid.
     */
    public static long kick(NatsBroker nats, String account, String name, Creds observer, Creds evictor) throws Exception {
        long cid = -1;
        try (Connection watch = connect(nats, observer, "test-observer"); Connection kick = connect(nats, evictor,
                "test-evictor")) {
            byte[] connz = watch.request("$SYS.REQ.ACCOUNT." + account + ".CONNZ", "{\"limit\":1024}"
                    .getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(5)).getData();
            for (JsonNode conn : new ObjectMapper().readTree(connz).path("data").path("connections")) {
                if (conn.path("name").asText().equals(name)) {
                    cid = conn.path("cid").asLong();
                }
            }
            assertTrue(cid > 0, name + " is listed by CONNZ");
            kick.request("$SYS.REQ.SERVER." + nats.serverId() + ".KICK", ("{\"cid\":" + cid + "}")
                    .getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(5));
        }
        return cid;
    }

    private static Connection connect(NatsBroker nats, Creds creds, String label) {
        return NatsConnector.builder().server(nats.url()).creds(creds).label(label).build().connect();
    }
}
