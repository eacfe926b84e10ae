package ai.cotal.auth.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.PlaneHealth;
import ai.cotal.auth.ScannerKick;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.id.SpaceName;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.workspace.SecretKeys;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** {@code GET /health} says why (SPEC §13.21): the loopback document, the public face's two fields, a fenced plane. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class HealthBrokerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final MeteredService f = new MeteredService();

    @TempDir
    Path stateDir;

    private static Set<String> fields(JsonNode node) {
        Set<String> names = new TreeSet<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static String scannerStatus(JsonNode health) {
        for (JsonNode connection : health.path("connections")) {
            if (connection.path("role").asText().equals("auth-scan")) {
                return connection.path("status").asText();
            }
        }
        return "absent";
    }

    private JsonNode health(String url) throws Exception {
        var answer = f.health(url);
        assertEquals(200, answer.statusCode(), answer.body());
        return JSON.readTree(answer.body());
    }

    @Test
    void theLoopbackFaceSaysWhyAndThePublicFaceOnlyWhether(NatsBrokers brokers) throws Exception {
        NatsBroker nats = f.broker(brokers);
        Creds evictor = Creds.mintSystem(f.auth.broker(), Identity.create(), CredentialProfile.CONNECTION_EVICTOR, null,
                MintOptions.defaults());
        AuthService service = AuthService.open(StockPlane.options(nats.url(), "alpha", stateDir, f.store)
                .serviceEndpoints(true).build(), AuthServiceOptions.builder()
                .publicAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build());
        var plane = service.plane();
        try {
            assertEquals(PlaneHealth.State.OPEN, plane.health().state());
            JsonNode open = health(service.loopbackUrl());
            assertEquals(Set.of("ok", "issuer", "plane", "connections", "callout", "stores"), fields(open));
            assertTrue(open.path("ok").asBoolean());
            assertEquals("urn:cotal:auth:alpha", open.path("issuer").asText());
            assertEquals(Set.of("state"), fields(open.path("plane")));
            assertEquals("open", open.path("plane").path("state").asText());
            List<String> roles = new ArrayList<>();
            for (JsonNode connection : open.path("connections")) {
                assertEquals(Set.of("role", "name", "status", "serverId", "cid"), fields(connection));
                assertEquals("connected", connection.path("status").asText(), connection.toString());
                assertEquals(nats.serverId(), connection.path("serverId").asText());
                assertTrue(connection.path("name").asText().endsWith(":alpha"), connection.toString());
                roles.add(connection.path("role").asText());
            }
            assertEquals(List.of("auth-mint", "auth-reader", "auth-barrier", "auth-issuer", "ep-discovery", "auth-scan",
                    "records-scan", "auth-admin"), roles, "the plane's connections in boot order, by role label");
            assertEquals(Set.of("answering", "status"), fields(open.path("callout")));
            assertTrue(open.path("callout").path("answering").asBoolean());
            assertEquals("connected", open.path("callout").path("status").asText());
            List<String> stores = new ArrayList<>();
            for (JsonNode store : open.path("stores")) {
                assertEquals(Set.of("store", "stream", "bytes", "maxBytes", "percent", "refusing", "readAt"), fields(store));
                assertTrue(store.path("maxBytes").asLong() > 0 && !store.path("refusing").asBoolean(), store.toString());
                assertEquals("KV_cotal_" + store.path("store").asText() + "_" + SpaceName.token("alpha"),
                        store.path("stream").asText());
                stores.add(store.path("store").asText());
            }
            assertEquals(List.of("auth", "issued", "accepted"), stores);

            JsonNode publicFace = health(service.publicUrl().orElseThrow());
            assertEquals(Set.of("ok", "issuer"), fields(publicFace), "the public face answers only whether");
            assertTrue(publicFace.path("ok").asBoolean());

            ScannerKick.kick(nats, f.auth.account().accountPublicKey(), ScannerKick.ledgerScanner("alpha"),
                    Creds.parse(f.store.getText(SecretKeys.membershipObserverCredsKey("alpha")).orElseThrow()), evictor);
            service.unavailable().get(10, java.util.concurrent.TimeUnit.SECONDS);
            JsonNode fenced = health(service.loopbackUrl());
            long deadline = System.currentTimeMillis() + 10_000;
            // the responder leaves its group, and the fence closes the scanners, as the fence reaches them
            while ((fenced.path("callout").path("answering").asBoolean() || scannerStatus(fenced).equals("connected"))
                    && System.currentTimeMillis() < deadline) {
                fenced = health(service.loopbackUrl());
            }
            assertFalse(fenced.path("ok").asBoolean(), fenced.toString());
            assertEquals("fenced", fenced.path("plane").path("state").asText());
            assertTrue(fenced.path("plane").path("reason").asText().contains("stopped serving"), fenced.toString());
            assertFalse(fenced.path("callout").path("answering").asBoolean(), "the responder left the queue group");
            assertEquals("closed", scannerStatus(fenced), "the lost ledger scanner: " + fenced);
            assertEquals(PlaneHealth.State.FENCED, plane.health().state());
        } finally {
            service.close();
        }
        assertEquals(PlaneHealth.State.CLOSED, plane.health().state(), "health() answers after close");
    }
}
