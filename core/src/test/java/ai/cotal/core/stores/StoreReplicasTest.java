package ai.cotal.core.stores;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import io.nats.client.api.ServerInfo;
import io.nats.client.api.StreamConfiguration;
import org.junit.jupiter.api.Test;

class StoreReplicasTest {
    private static ServerInfo info(String json) {
        return new ServerInfo("INFO " + json);
    }

    @Test
    void acceptsOneThreeOrFiveOnly() {
        assertSame(StoreReplicas.one(), StoreReplicas.of(1));
        assertEquals("StoreReplicas[3]", StoreReplicas.of(3).toString());
        assertEquals("StoreReplicas[5]", StoreReplicas.of(5).toString());
        for (int bad : new int[] {0, 2, 4, 6, -1}) {
            CotalException e = assertThrows(CotalException.class, () -> StoreReplicas.of(bad));
            assertEquals(ErrorCode.BAD_REQUEST, e.code());
            assertTrue(e.getMessage().startsWith("replicas"), e.getMessage());
        }
    }

    @Test
    void autoFollowsTheClusterSize() {
        assertEquals(1, StoreReplicas.fromServer(info("{\"server_id\":\"N1\",\"server_name\":\"n1\"}")), "single server");
        assertEquals(3, StoreReplicas.fromServer(info("{\"server_name\":\"n1\",\"cluster\":\"c\",\"connect_urls\":"
                + "[\"127.0.0.1:1\",\"127.0.0.1:2\",\"127.0.0.1:3\"]}")));
        assertEquals(3, StoreReplicas.fromServer(info("{\"server_name\":\"n1\",\"cluster\":\"c\",\"connect_urls\":"
                + "[\"h:1\",\"h:2\",\"h:3\",\"h:4\",\"h:5\"]}")), "never 5 unasked");
        assertEquals(1, StoreReplicas.fromServer(info("{\"server_name\":\"n1\",\"cluster\":\"c\",\"connect_urls\":"
                + "[\"h:1\",\"h:2\"]}")), "two servers");
        CotalException e = assertThrows(CotalException.class, () -> StoreReplicas.fromServer(
                info("{\"server_name\":\"n1\",\"cluster\":\"c\"}")));
        assertEquals(ErrorCode.FAILED_PRECONDITION, e.code());
        assertTrue(e.getMessage().contains("StoreReplicas.of"), e.getMessage());
    }

    @Test
    void replicaDriftNamesTheEdit() {
        StreamConfiguration expected = StoreSpecs.authority("alpha", 3).get(0);
        StreamConfiguration live = StoreSpecs.auth("alpha");
        CotalException e = assertThrows(CotalException.class, () -> SpaceStores.verify(expected, live));
        assertEquals(ErrorCode.FAILED_PRECONDITION, e.code());
        assertTrue(e.getMessage().contains("num_replicas is 1, expected 3"), e.getMessage());
        assertTrue(e.getMessage().contains("nats stream edit KV_cotal_auth_alpha --replicas 3"), e.getMessage());
        assertTrue(e.getMessage().contains("SpaceStores.changeReplicas(connection, space, StoreReplicas.of(3))"));
    }
}
