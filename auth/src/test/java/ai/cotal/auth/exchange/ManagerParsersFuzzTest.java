package ai.cotal.auth.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.cotal.auth.records.ManagerRecords;
import ai.cotal.auth.fuzz.Fuzz;
import ai.cotal.auth.internal.manager.ServingDocuments;
import ai.cotal.core.internal.json.ClosedJson;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Parser fuzz rows for the closed JSON of SPEC §14.5 and §14.6 (the pattern of
 * {@code ParserFuzzTest}, in a class of its own): the session row, the
 * {@code /manager-service-authority} and verify-enrollment bodies, and the exchange body with its
 * session fields. Every mutated input parses or is refused typed.
 */
class ManagerParsersFuzzTest {
    private static final String IID = "mgr0000000000000000000000001";
    private static final String SID = "session00000000000000000001";
    private static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";

    private static void expectClean(Fuzz.Report report) {
        System.out.println("fuzz " + report);
        assertEquals(List.of(), report.failures(), report.toString());
    }

    @Test
    void sessionRows() {
        byte[] seed = ManagerRecords.session(IID, SID, OWNER, OWNER + ".laptop", List.of("status", "spawn"), false,
                1_900_000_000L);
        expectClean(Fuzz.run("manager-session", List.of(seed), input -> ServingDocuments.parseSession(IID, SID, input)));
    }

    @Test
    void managerAuthorityBodies() {
        expectClean(Fuzz.run("manager-service-authority", Fuzz.utf8("{\"bearer\":\"a.b.c\",\"instanceId\":\"" + IID
                + "\",\"userPublicKey\":\"UABC\",\"renew\":{\"registrationRevision\":7,\"processEpoch\":2}}"),
                input -> ClosedJson.read(ClosedJson.cotal(), input, ManagerAuthorityRoute.Request.class, "body")));
        expectClean(Fuzz.run("verify-enrollment", Fuzz.utf8("{\"owner\":\"" + OWNER + "\",\"instanceId\":\"" + IID + "\"}"),
                input -> ClosedJson.read(ClosedJson.cotal(), input, ManagerAuthorityRoute.Enrollment.class, "body")));
    }

    @Test
    void exchangeBodiesWithSessionFields() {
        expectClean(Fuzz.run("exchange-session", Fuzz.utf8("{\"idpToken\":\"x\",\"actor\":\"laptop\",\"view\":"
                + "\"session-caller\",\"sessionGrant\":\"" + IID + "." + SID + "\"}", "{\"idpToken\":\"x\",\"view\":"
                + "\"manager-caller\",\"managerInstanceId\":\"" + IID + "\"}"), input -> ClosedJson.read(ClosedJson.cotal(),
                input, ExchangeArms.Request.class, "exchange").serving()));
    }
}
