package ai.cotal.servicehost;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class HostJsonTest {
    private static final String RID = "req-0123456789abcdef";
    private static final String IID = "abcdefghijklmnopqrstuvwxyz";

    private static HostRequest parse(String json) {
        return HostJson.parseRequest(json.getBytes(StandardCharsets.UTF_8));
    }

    private static ContractException refused(String json) {
        ContractException e = assertThrows(ContractException.class, () -> parse(json));
        assertEquals("bad-request", e.code());
        return e;
    }

    @Test
    void everyKindRoundTrips() {
        List<HostRequest> requests = List.of(
                new HostRequest.Register(RID, "weather", IID, "sha256:" + "a".repeat(64), List.of("invoke")),
                new HostRequest.Decide(RID, "weather", IID, HostRequest.Decision.APPROVE),
                new HostRequest.Revoke(RID, "weather", IID),
                new HostRequest.NameBind(RID, "forecast", "weather", "u_" + "a".repeat(26), "dns:forecast.example", 0),
                new HostRequest.CallerGrant(RID, "weather", IID, new HostRequest.Grantee("u_abcdefghijklmnopqrstuvwxyz",
                        "laptop"), List.of("invoke")),
                new HostRequest.CallerRevoke(RID, "weather", IID, "abcdefghijklmnopqrstuvwxyz"),
                new HostRequest.CallerRead("weather", IID, "abcdefghijklmnopqrstuvwxyz"),
                new HostRequest.CallerList("weather", IID, null, 10),
                new HostRequest.InstanceRead("weather", IID), new HostRequest.InstanceList("Y3Vyc29y", 100),
                new HostRequest.ProposalRead("abcdefghijklmnopqrstuvwxyz"),
                new HostRequest.OperationRead("abcdefghijklmnopqrstuvwxyz"), new HostRequest.NameRead("forecast"));
        for (HostRequest request : requests) {
            byte[] bytes = HostJson.writeRequest(request);
            assertTrue(new String(bytes, StandardCharsets.UTF_8).startsWith("{\"kind\":\"" + request.kind() + "\""));
            assertEquals(request, HostJson.parseRequest(bytes));
            assertArrayEquals(bytes, HostJson.writeRequest(HostJson.parseRequest(bytes)), "identical bytes");
        }
    }

    /**
     * The request digest (SPEC §13.1) is SHA-256 of these bytes: {@code kind} first, then the
     * fields in grammar order, no whitespace, absent optionals left out. Each kind is written
     * exactly as a tree with {@code kind} put first would write it.
     */
    @Test
    void canonicalRequestBytesAreKindFirstThenTheFieldsInGrammarOrder() throws Exception {
        assertEquals("{\"kind\":\"decide\",\"requestId\":\"" + RID + "\",\"endpoint\":\"weather\",\"instanceId\":\"" + IID
                + "\",\"decision\":\"approve\"}", new String(HostJson.writeRequest(new HostRequest.Decide(RID, "weather", IID,
                HostRequest.Decision.APPROVE)), StandardCharsets.UTF_8));
        assertEquals("{\"kind\":\"caller-list\",\"endpoint\":\"weather\",\"instanceId\":\"" + IID + "\",\"limit\":10}",
                new String(HostJson.writeRequest(new HostRequest.CallerList("weather", IID, null, 10)), StandardCharsets.UTF_8));
        assertEquals("{\"kind\":\"instance-list\"}", new String(HostJson.writeRequest(new HostRequest.InstanceList(null, null)),
                StandardCharsets.UTF_8));
        com.fasterxml.jackson.databind.ObjectMapper tree = new com.fasterxml.jackson.databind.ObjectMapper()
                .setSerializationInclusion(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL);
        for (HostRequest request : List.of(
                new HostRequest.Register(RID, "com.example.weather", IID, "sha256:" + "a".repeat(64), List.of("invoke", "ask")),
                new HostRequest.Decide(RID, "weather", IID, HostRequest.Decision.REFUSE),
                new HostRequest.NameBind(RID, "forecast", "weather", "u_" + "a".repeat(26), "dns:\"forecast\"\\example", 0),
                new HostRequest.CallerGrant(RID, "weather", IID, new HostRequest.Grantee("u_abcdefghijklmnopqrstuvwxyz",
                        "laptop"), List.of("invoke", "read")),
                new HostRequest.CallerList("weather", IID, "Y3Vyc29y", null), new HostRequest.InstanceList(null, 1))) {
            com.fasterxml.jackson.databind.node.ObjectNode node = tree.createObjectNode().put("kind", request.kind());
            node.setAll((com.fasterxml.jackson.databind.node.ObjectNode) tree.valueToTree(request));
            assertArrayEquals(tree.writeValueAsBytes(node), HostJson.writeRequest(request), request.kind());
        }
    }

    @Test
    void endpointNamesAreReverseDnsAndTheirTokensMapBackOneToOne() {
        HostRequest.Revoke revoke = (HostRequest.Revoke) parse("{\"kind\":\"revoke\",\"requestId\":\"" + RID
                + "\",\"endpoint\":\"com.example.weather\",\"instanceId\":\"" + IID + "\"}");
        assertEquals("com.example.weather", revoke.endpoint());
        assertEquals("com_example_weather", EndpointName.token("com.example.weather"));
        assertEquals("com.example.weather", EndpointName.fromToken("com_example_weather"));
        assertEquals("weather", EndpointName.token("weather"));
        String longest = String.join(".", "a".repeat(63), "b".repeat(63), "c".repeat(63), "d".repeat(61));
        assertEquals(EndpointName.MAX_LENGTH, longest.length());
        assertTrue(EndpointName.valid(longest));
        for (String bad : new String[] {"com..example", ".weather", "weather.", "com_example", "Weather", "-w", "w-",
                "a".repeat(64), longest + "e", "com.example.weather_2", ""}) {
            assertFalse(EndpointName.valid(bad), bad);
            ContractException e = refused("{\"kind\":\"revoke\",\"requestId\":\"" + RID + "\",\"endpoint\":\""
                    + bad + "\",\"instanceId\":\"" + IID + "\"}");
            assertTrue(e.getMessage().startsWith("endpoint: must be DNS labels"), e.getMessage());
        }
        assertThrows(ContractException.class, () -> EndpointName.fromToken("com.example"), "a token holds no dot");
        assertEquals("com.example.forecast", ((HostRequest.NameRead) parse("{\"kind\":\"name-read\",\"name\":"
                + "\"com.example.forecast\"}")).name());
    }

    @Test
    void closedParsingRefusesEverythingOutOfGrammar() {
        refused("{\"kind\":\"revoke\",\"requestId\":\"" + RID + "\",\"endpoint\":\"weather\",\"instanceId\":\"" + IID
                + "\",\"extra\":1}");
        refused("{\"kind\":\"teleport\"}");
        refused("{\"kind\":\"revoke\",\"requestId\":\"short\",\"endpoint\":\"weather\",\"instanceId\":\"" + IID + "\"}");
        refused("{\"kind\":\"revoke\",\"requestId\":\"" + RID + "\",\"endpoint\":\"Weather.Service\",\"instanceId\":\"" + IID + "\"}");
        refused("{\"kind\":\"name-bind\",\"requestId\":\"" + RID + "\",\"name\":\"n\",\"endpoint\":\"e\",\"owner\":\"u_aaaaaaaaaaaaaaaaaaaaaaaaaa\",\"claimReference\":\"c\","
                + "\"expectedRevision\":9007199254740993}");
        refused("{\"kind\":\"name-bind\",\"requestId\":\"" + RID + "\",\"name\":\"n\",\"endpoint\":\"e\",\"owner\":\"u_aaaaaaaaaaaaaaaaaaaaaaaaaa\",\"claimReference\":\"c\","
                + "\"expectedRevision\":\"0\"}");
        refused("{\"kind\":\"name-bind\",\"requestId\":\"" + RID + "\",\"name\":\"n\",\"endpoint\":\"e\",\"owner\":\"u_aaaaaaaaaaaaaaaaaaaaaaaaaa\",\"claimReference\":\"c\","
                + "\"expectedRevision\":0.5}");
        refused("{\"kind\":\"decide\",\"requestId\":\"" + RID + "\",\"endpoint\":\"weather\",\"instanceId\":\"" + IID
                + "\",\"decision\":\"maybe\"}");
        refused("{\"kind\":\"instance-list\",\"limit\":101}");
        refused("{\"kind\":\"instance-read\",\"endpoint\":\"weather\",\"endpoint\":\"other\",\"instanceId\":\"" + IID + "\"}");
        refused("{\"kind\":\"caller-grant\",\"requestId\":\"" + RID + "\",\"endpoint\":\"weather\",\"instanceId\":\"" + IID
                + "\",\"grantee\":{\"owner\":\"u_abcdefghijklmnopqrstuvwxyz\",\"actor\":\"a\"},\"capabilities\":[\"journal-read\"]}");
        refused("{\"kind\":\"caller-grant\",\"requestId\":\"" + RID + "\",\"endpoint\":\"weather\",\"instanceId\":\"" + IID
                + "\",\"grantee\":{\"owner\":\"u_abcdefghijklmnopqrstuvwxyz\",\"actor\":\"a\"},\"capabilities\":[\"any\"]}");
        ContractException named = refused("{\"kind\":\"revoke\",\"requestId\":\"" + RID + "\",\"endpoint\":\"weather\"}");
        assertTrue(named.getMessage().startsWith("instanceId"), named.getMessage());
        refused("{\"kind\":\"revoke\"} trailing");
    }

    @Test
    void aRefusalNamesAPlainFieldButNeverQuotesAHostileName() {
        String extra = "{\"kind\":\"revoke\",\"requestId\":\"" + RID + "\",\"endpoint\":\"weather\",\"instanceId\":\""
                + IID + "\",";
        assertTrue(refused(extra + "\"extra\":1}").getMessage().contains("extra"), "a plain name is shown");
        String secret = "SUAIBDPBAUTWCWBKIO6XHQNINK5FWJW4OHLXC3HQ2KFE4PEJUA44CNHTBI";
        ContractException hidden = refused(extra + "\"" + secret + "\\nFAKE LOG LINE\":1}");
        assertFalse(hidden.getMessage().contains(secret), hidden.getMessage());
        assertFalse(hidden.getMessage().contains("FAKE"), hidden.getMessage());
        assertTrue(hidden.getMessage().contains("<name not shown>"), hidden.getMessage());
        assertEquals("<name not shown>", HostJson.fieldName("x".repeat(65)));
    }

    @Test
    void aNameShapedLikeASeedAKeyOrACapabilityIsNotShownEvenAlone() {
        String seed = "SUAIBDPBAUTWCWBKIO6XHQNINK5FWJW4OHLXC3HQ2KFE4PEJUA44CNHTBI"; // 58 characters, 1 to 64 of the set
        ContractException e = refused("{\"kind\":\"revoke\",\"requestId\":\"" + RID + "\",\"endpoint\":\"weather\","
                + "\"instanceId\":\"" + IID + "\",\"" + seed + "\":1}");
        assertFalse(e.getMessage().contains(seed), e.getMessage());
        assertTrue(e.getMessage().contains("<name not shown>"), e.getMessage());
        for (String secretShaped : new String[] {seed,
                "UAYIEI5SXGBQLUGSNE3VVWN2VHVRAKEJCTGM7FZCYPC6MEOJTBHCSW3M", // a public nkey
                "Qm9ndXNDYXBhYmlsaXR5VG9rZW5fLTAxMjM0NTY3ODk", // a base64url capability
                "0123456789abcdef0123456789abcdef", // 32 hex
                "abcdefghijklmnopqrstuvwxyz234567"}) { // 32 base32
            assertEquals("<name not shown>", HostJson.fieldName(secretShaped), secretShaped);
        }
        for (String plain : new String[] {"kid", "allowSubscribe", "x".repeat(31), "$schema", "a$" + "b".repeat(40)}) {
            assertEquals(plain, HostJson.fieldName(plain), plain);
        }
    }

    @Test
    void statesTravelByTheirWireNamesAndAnUnknownOneIsRefusedByType() {
        HostResult read = HostJson.parseResult(("{\"status\":\"completed\",\"completion\":\"stored\",\"instance\":{"
                + "\"endpoint\":\"weather\",\"instanceId\":\"" + IID + "\",\"owner\":\"u_" + "a".repeat(26) + "\","
                + "\"registrationState\":\"revoked\",\"gate\":{\"state\":\"retired\",\"revision\":4},"
                + "\"assignment\":\"fenced\"}}").getBytes(StandardCharsets.UTF_8));
        assertEquals(Views.RegistrationState.REVOKED, read.instance().registrationState());
        assertEquals(Views.GateState.RETIRED, read.instance().gate().state());
        assertEquals(Views.AssignmentState.FENCED, read.instance().assignment());
        assertEquals(HostResult.Completion.STORED, read.completion());
        String json = new String(HostJson.writeResult(read), StandardCharsets.UTF_8);
        assertTrue(json.contains("\"registrationState\":\"revoked\"") && json.contains("\"state\":\"retired\"")
                && json.contains("\"assignment\":\"fenced\"") && json.startsWith("{\"status\":\"completed\""), json);

        String secret = "SUAIBDPBAUTWCWBKIO6XHQNINK5FWJW4OHLXC3HQ2KFE4PEJUA44CNHTBI";
        for (String state : new String[] {"RETIRED", "Retired", secret, ""}) {
            ContractException e = assertThrows(ContractException.class, () -> HostJson.parseResult(json
                    .replace("\"state\":\"retired\"", "\"state\":\"" + state + "\"").getBytes(StandardCharsets.UTF_8)));
            assertEquals("bad-request", e.code());
            assertTrue(e.getMessage().startsWith("result.instance.gate.state"), e.getMessage());
            assertFalse(e.getMessage().contains(secret) || e.getMessage().contains("RETIRED"), e.getMessage());
        }
        ContractException status = assertThrows(ContractException.class, () -> HostJson.parseResult(
                "{\"status\":\"HELD\"}".getBytes(StandardCharsets.UTF_8)));
        assertTrue(status.getMessage().startsWith("result.status"), status.getMessage());
        refused("{\"kind\":\"decide\",\"requestId\":\"" + RID + "\",\"endpoint\":\"weather\",\"instanceId\":\"" + IID
                + "\",\"decision\":\"APPROVE\"}");
        assertEquals(HostRequest.Decision.REFUSE, ((HostRequest.Decide) parse("{\"kind\":\"decide\",\"requestId\":\"" + RID
                + "\",\"endpoint\":\"weather\",\"instanceId\":\"" + IID + "\",\"decision\":\"refuse\"}")).decision());
    }

    @Test
    void resultsFollowTheStatusRules() {
        HostResult pending = HostResult.of(HostResult.Status.PENDING, "abcdefghijklmnopqrstuvwxyz", null);
        assertEquals(pending, HostJson.parseResult(HostJson.writeResult(pending)));
        assertThrows(ContractException.class, () -> HostResult.of(HostResult.Status.DENIED, "abcdefghijklmnopqrstuvwxyz", null));
        assertThrows(ContractException.class, () -> HostResult.of(HostResult.Status.PENDING, null, null));
        assertThrows(ContractException.class, () -> HostResult.of(HostResult.Status.COMPLETED, "abcdefghijklmnopqrstuvwxyz", null));
        HostResult revoke = new HostResult(HostResult.Status.COMPLETED, RID, "abcdefghijklmnopqrstuvwxyz",
                HostResult.Completion.APPLIED, List.of(RID), HostResult.DenyNew.IN_EFFECT, null, null, null, null, null, null,
                null, null, null, null, null);
        String json = new String(HostJson.writeResult(revoke), StandardCharsets.UTF_8);
        assertTrue(json.contains("\"denyNew\":\"in-effect\""), json);
        assertTrue(json.startsWith("{\"status\":\"completed\",\"requestId\":\"" + RID + "\""), "the result echoes its request: " + json);
        assertThrows(ContractException.class, () -> pending.withRequestId("short"), "an echoed requestId keeps its grammar");
        assertEquals(revoke, HostJson.parseResult(json.getBytes(StandardCharsets.UTF_8)));
        assertThrows(ContractException.class, () -> HostJson.parseResult("{\"status\":\"held\",\"surprise\":true}"
                .getBytes(StandardCharsets.UTF_8)));
    }
}
