package ai.cotal.auth.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.IdpPin;
import ai.cotal.auth.service.AuthServiceOptions;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The join bundle's options are refused at build, naming the field; its shape follows SPEC §13.17. */
class JoinBundleOptionsTest {
    private static AuthServiceOptions.Builder options() {
        return AuthServiceOptions.builder().publicAddress(new InetSocketAddress("127.0.0.1", 0));
    }

    private static void refused(String field, AuthServiceOptions.Builder builder) {
        CotalException e = assertThrows(CotalException.class, builder::build);
        assertEquals(ErrorCode.BAD_REQUEST, e.code());
        assertTrue(e.getMessage().startsWith(field), e.getMessage());
    }

    @Test
    void badOptionsAreRefusedNamingTheField() {
        for (String bad : List.of("http://broker:4222", "broker:4222", "nats://", "nats://user:pw@broker:4222",
                "nats://broker:4222#x", "nats://broker:4222?a=b", "ftp://broker", "")) {
            refused("advertisedServer", options().advertisedServer(bad));
        }
        for (String bad : List.of("http://agents.example", "https://", "https://u@agents.example", "https://a.example/#f",
                "agents.example")) {
            refused("agentProvisioningUrl", options().agentProvisioningUrl(bad));
        }
        refused("advertisedServer", options().publicAddress(null).advertisedServer("tls://broker.example:4222"));
        refused("agentProvisioningUrl", options().publicAddress(null).agentProvisioningUrl("https://agents.example"));
        for (String good : List.of("nats://broker:4222", "tls://broker.example:4222", "ws://broker:8080", "wss://broker/ws")) {
            assertEquals(good, options().advertisedServer(good).build().advertisedServer().orElseThrow());
        }
        assertEquals("https://agents.example/p", options().agentProvisioningUrl("https://agents.example/p").build()
                .agentProvisioningUrl().orElseThrow());
    }

    @Test
    void tlsRequiredFollowsTheAdvertisedSchemeAndAbsentPartsAreLeftOut() throws Exception {
        JsonNode tls = new ObjectMapper().readTree(JoinBundle.render("alpha", "tls://broker.example:4222", "CREDS",
                "http://127.0.0.1:8443", Optional.empty(), Optional.empty()));
        assertTrue(tls.get("tlsRequired").asBoolean());
        assertFalse(tls.get("userAuth").has("idp"), "no IdP pinned: no idp");
        assertFalse(tls.get("userAuth").get("endpoints").has("agentProvisioningUrl"));
        JsonNode wss = new ObjectMapper().readTree(JoinBundle.render("alpha", "wss://broker/ws", "CREDS",
                "http://127.0.0.1:8443", Optional.of(new IdpPin("https://idp", "https://idp", "aud", "https://idp/jwks")),
                Optional.of("https://agents.example")));
        assertTrue(wss.get("tlsRequired").asBoolean());
        assertEquals(List.of("url", "issuer", "audience"), List.copyOf(iterable(wss.get("userAuth").get("idp"))));
        assertFalse(new ObjectMapper().readTree(JoinBundle.render("alpha", "ws://broker:8080", "C", "http://h:1",
                Optional.empty(), Optional.empty())).get("tlsRequired").asBoolean());
    }

    private static List<String> iterable(JsonNode node) {
        List<String> names = new java.util.ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
