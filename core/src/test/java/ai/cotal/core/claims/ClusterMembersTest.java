package ai.cotal.core.claims;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * SPEC §5.5: members given explicitly are server names, checked before anything is sent; and the
 * rule that reads a meta group, on answers shaped as nats-server 2.15 gives them (the cases a
 * three-member test cluster cannot reach: a member that never joined, a server without JetStream;
 * ClusterClaimsBrokerTest covers the others on a real cluster).
 */
class ClusterMembersTest {
    private static final String SERVER = "\"server\": {\"name\": \"n1\", \"id\": \"NA3P7EVCDU5HAUHXBXLD24NBH57KD7KBAOAYV4XGCNB6IG6DRSHBI6AH\"}";

    private static ClaimsReply jsz(String data) {
        return ClaimsReply.parse(("{" + SERVER + ", \"data\": " + data + "}").getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void aMetaGroupNamesTheAnsweringServerAndEveryPeerOfflineOnesIncluded() {
        ClusterMembers members = ClusterMembers.fromMetaGroup("c1", jsz("{\"meta_cluster\": {\"name\": \"c1\","
                + " \"leader\": \"n3\", \"replicas\": [{\"name\": \"n2\", \"current\": false, \"offline\": true,"
                + " \"peer\": \"44jzkV9D\"}, {\"name\": \"n3\", \"current\": true, \"peer\": \"BXScrY9i\"}],"
                + " \"cluster_size\": 3}}"));
        assertEquals(Set.of("n1", "n2", "n3"), members.names());
        assertEquals(Set.of("n2"), members.offline());
        assertEquals(ClusterMembers.Source.META_GROUP, members.source());
        assertEquals("n1", members.learnedFrom().orElseThrow());
    }

    @Test
    void aPeerNoLiveServerCanNameIsKeptByItsPeerId() {
        ClusterMembers members = ClusterMembers.fromMetaGroup("c1", jsz("{\"meta_cluster\": {\"leader\": \"n1\","
                + " \"replicas\": [{\"name\": \"Server name unknown at this time (peerID: 44jzkV9D)\", \"current\": false,"
                + " \"offline\": true, \"peer\": \"44jzkV9D\"}, {\"name\": \"n3\", \"current\": true, \"peer\": \"BXScrY9i\"}],"
                + " \"cluster_size\": 3}}"));
        assertEquals(Set.of("n1", "n3"), members.names());
        assertEquals(Set.of("44jzkV9D"), members.unnamedPeers());
    }

    @Test
    void aMetaGroupStillFormingOrNoMetaGroupIsRefused() {
        CotalException forming = assertThrows(CotalException.class, () -> ClusterMembers.fromMetaGroup("c1",
                jsz("{\"meta_cluster\": {\"replicas\": [{\"name\": \"n1\", \"current\": true, \"peer\": \"Zx1\"}],"
                        + " \"cluster_size\": 3}}")));
        assertEquals(ErrorCode.FAILED_PRECONDITION, forming.code());
        assertTrue(forming.getMessage().contains("expects 3 members but knows only 1")
                && forming.getMessage().contains("ClusterMembers.of"), forming.getMessage());
        CotalException none = assertThrows(CotalException.class, () -> ClusterMembers.fromMetaGroup("c1",
                jsz("{\"disabled\": true}")));
        assertEquals(ErrorCode.FAILED_PRECONDITION, none.code());
        assertTrue(none.getMessage().contains("no JetStream meta group"), none.getMessage());
    }

    @Test
    void givenMembersAreServerNames() {
        ClusterMembers members = ClusterMembers.of(List.of("n2", "n1", "n3"));
        assertEquals(List.of("n1", "n2", "n3"), List.copyOf(members.names()));
        assertEquals(ClusterMembers.Source.GIVEN, members.source());
        assertTrue(members.learnedFrom().isEmpty());
        assertEquals(Set.of(), members.unnamedPeers());
    }

    @Test
    void anEmptyListOrANameThatCannotBeAServerNameIsRefusedNamingTheOption() {
        for (List<String> bad : List.of(List.<String>of(), List.of("n1", ""), List.of("n1", "two words"),
                List.of("tab\there"), List.of("x".repeat(257)))) {
            CotalException e = assertThrows(CotalException.class, () -> ClusterMembers.of(bad));
            assertEquals(ErrorCode.BAD_REQUEST, e.code());
            assertTrue(e.getMessage().startsWith("serverNames: "), e.getMessage());
        }
        assertThrows(CotalException.class, () -> ClusterMembers.of(null));
    }
}
