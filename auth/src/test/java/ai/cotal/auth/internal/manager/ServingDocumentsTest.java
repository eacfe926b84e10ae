package ai.cotal.auth.internal.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.records.ManagerRecords;
import ai.cotal.auth.ServingGate;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The closed documents of SPEC §14.2 and §14.3: canonical writes, closed reads, refusals naming the field. */
class ServingDocumentsTest {
    private static final String IID = "mgr0000000000000000000000001";
    private static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aGateRoundTripsAndEveryBrokenRuleIsDataLoss() {
        ServingGate gate = new ServingGate("manager", IID, ServingGate.State.OPEN, OWNER + ".mgr", 3, 7,
                "2026-11-30T00:00:00Z", 11);
        byte[] bytes = ServingDocuments.write(gate);
        assertEquals("{\"v\":1,\"endpoint\":\"manager\",\"instanceId\":\"" + IID + "\",\"state\":\"open\",\"principal\":\""
                + OWNER + ".mgr\",\"processEpoch\":3,\"registrationRevision\":7,\"updatedAt\":\"2026-11-30T00:00:00Z\"}",
                new String(bytes, StandardCharsets.UTF_8), "closed camelCase, fields in order");
        assertEquals(gate, ServingDocuments.parseGate("manager", IID, bytes, 11));
        String good = new String(bytes, StandardCharsets.UTF_8);
        for (String broken : List.of(good.replace("\"open\"", "\"retired\""), good.replace(":3,", ":0,"),
                good.replace(OWNER + ".mgr", "nodot"), good.replace("}", ",\"extra\":1}"),
                good.replace("\"manager\"", "\"auth\""), good.replace("\"v\":1", "\"v\":2"), "null", "")) {
            CotalException e = assertThrows(CotalException.class, () -> ServingDocuments.parseGate("manager", IID,
                    utf8(broken), 1), broken);
            assertEquals(ErrorCode.DATA_LOSS, e.code(), broken);
            assertTrue(e.getMessage().startsWith("the serving record gate.manager." + IID + " is corrupt"), e.getMessage());
        }
    }

    @Test
    void managerRecordsAreCanonicalAndRefuseBadInputNamingTheField() {
        byte[] root = ManagerRecords.root(ManagerRecords.MANAGER_URN, List.of("spawn"));
        assertEquals("{\"v\":1,\"kind\":\"cluster-root\",\"urn\":\"ai.cotal.manager\",\"commands\":[\"spawn\"]}",
                new String(root, StandardCharsets.UTF_8));
        String digest = ManagerRecords.digest(root);
        assertTrue(digest.matches("sha256:[0-9a-f]{64}"), digest);
        assertEquals("svc.manager." + IID + ".artifact." + digest.substring(7), ManagerRecords.artifactKey(IID, digest));
        byte[] manifest = ManagerRecords.manifest(digest, List.of());
        assertEquals(digest, ServingDocuments.manifest(manifest).root());
        assertNull(ServingDocuments.manifest(root), "a root is not a manifest");
        assertNull(ServingDocuments.root(manifest), "a manifest is not a root");
        byte[] spec = ManagerRecords.spec(OWNER, "mgr", IID, List.of(ManagerRecords.digest(manifest)));
        assertEquals(OWNER, ServingDocuments.parseManagerSpec(IID, spec).owner());
        assertEquals(4, ServingDocuments.parseManagerStatus(IID, ManagerRecords.status(IID, 4, 2)).observedSpecRevision());

        assertEquals("owner", field(() -> ManagerRecords.spec("owner", "mgr", IID, List.of(digest))));
        assertEquals("clusterDigests", field(() -> ManagerRecords.spec(OWNER, "mgr", IID, List.of())));
        assertEquals("clusterDigests", field(() -> ManagerRecords.spec(OWNER, "mgr", IID, List.of(digest, digest))));
        assertEquals("instanceId", field(() -> ManagerRecords.specKey("Not-An-Id")));
        assertEquals("epoch", field(() -> ManagerRecords.status(IID, 1, 0)));
        assertEquals("urn", field(() -> ManagerRecords.root("AI COTAL", List.of("spawn"))));
        assertEquals("commands", field(() -> ManagerRecords.root("ai.cotal.manager", List.of("Spawn"))));
        assertEquals("digest", field(() -> ManagerRecords.artifactKey(IID, "sha256:xyz")));
        assertEquals(ErrorCode.DATA_LOSS, assertThrows(CotalException.class, () -> ServingDocuments.parseManagerSpec(
                "mgr0000000000000000000000002", spec)).code(), "a spec stored under another instance's key");
    }

    private static String field(org.junit.jupiter.api.function.Executable call) {
        CotalException e = assertThrows(CotalException.class, call);
        assertEquals(ErrorCode.BAD_REQUEST, e.code());
        return e.getMessage().substring(0, e.getMessage().indexOf(':'));
    }
}
