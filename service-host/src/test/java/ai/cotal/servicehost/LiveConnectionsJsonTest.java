package ai.cotal.servicehost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A revoke's live-connection evidence on the wire (SPEC §13.1): closed JSON, never negative. */
class LiveConnectionsJsonTest {
    @Test
    void aRevokeResultCarriesItsLiveConnectionEvidenceAndParsesBack() {
        HostResult revoke = HostResult.of(HostResult.Status.HELD, "abcdefghijklmnopqrstuvwxyz", "deadline")
                .withLiveConnections(new HostResult.LiveConnections(2, 1, true, HostResult.Unclosed.NO_EVICTOR_CREDENTIAL));
        String json = new String(HostJson.writeResult(revoke), StandardCharsets.UTF_8);
        assertTrue(json.contains("\"liveConnections\":{\"closed\":2,\"open\":1,\"swept\":true,"
                + "\"unclosed\":\"no-evictor-credential\"}"), json);
        assertEquals(revoke, HostJson.parseResult(json.getBytes(StandardCharsets.UTF_8)));
        assertThrows(ContractException.class, () -> HostJson.parseResult(json.replace("\"open\":1", "\"open\":1,\"x\":0")
                .getBytes(StandardCharsets.UTF_8)));
        assertThrows(ContractException.class, () -> HostJson.parseResult(json.replace(",\"swept\":true", "")
                .getBytes(StandardCharsets.UTF_8)), "swept is always on the wire");
        assertThrows(ContractException.class, () -> HostJson.parseResult(json.replace("no-evictor-credential", "gone")
                .getBytes(StandardCharsets.UTF_8)), "unclosed is one of its wire names");
        assertThrows(ContractException.class, () -> new HostResult.LiveConnections(-1, 0, false, null));
        assertThrows(ContractException.class, () -> new HostResult.LiveConnections(0, 1, false, null),
                "open connections say why");
        assertThrows(ContractException.class, () -> new HostResult.LiveConnections(1, 0, true,
                HostResult.Unclosed.KICK_UNANSWERED), "nothing open, nothing to explain");
        HostResult closed = revoke.withLiveConnections(HostResult.LiveConnections.allClosed(3, true));
        String closedJson = new String(HostJson.writeResult(closed), StandardCharsets.UTF_8);
        assertTrue(closedJson.contains("\"liveConnections\":{\"closed\":3,\"open\":0,\"swept\":true}"), closedJson);
        assertEquals(closed, HostJson.parseResult(closedJson.getBytes(StandardCharsets.UTF_8)));
    }
}
