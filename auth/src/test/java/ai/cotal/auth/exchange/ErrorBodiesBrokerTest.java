package ai.cotal.auth.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.Grant;
import ai.cotal.auth.IdpPin;
import ai.cotal.auth.PlaneFixture;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import ai.cotal.servicehost.ServiceEndpointHostClient;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #16 part 4 on the real broker: failures whose causes carry the state directory's absolute
 * path and exception text (an unreadable ledger row, a corrupt one, a symlinked one, an IdP key
 * fetch that fails) answer on the public face with the kind of failure only.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class ErrorBodiesBrokerTest {
    private static final Pattern EXCEPTION = Pattern.compile("\\w+(Exception|Error)\\b");
    private final PlaneFixture f = new PlaneFixture();
    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path stateDir;

    private HttpResponse<String> post(String url, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private void assertClean(HttpResponse<String> answer, int status, String what) throws Exception {
        assertEquals(status, answer.statusCode(), what + ": " + answer.body());
        for (String path : List.of(stateDir.toString(), stateDir.toRealPath().toString())) {
            assertFalse(answer.body().contains(path), what + " names the state directory: " + answer.body());
        }
        assertFalse(answer.body().contains("/tmp"), what + " holds a path: " + answer.body());
        assertFalse(EXCEPTION.matcher(answer.body()).find(), what + " holds exception text: " + answer.body());
    }

    @Test
    void publicFaceFailuresNameTheKindNeverAPathOrAnException(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (TestIdp idp = new TestIdp();
             AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).serviceEndpoints(true).build())) {
            IdpPin pin = IdpPin.pin(stateDir, idp.url());
            Owner owner = plane.deriveOwner(pin.issuer(), "alice");
            plane.ledger().grantActor(Principal.of(owner.value(), "laptop"), Grant.of(List.of("chat"), List.of(), List.of()));
            Path row = stateDir.resolve("actors").resolve("interactive").resolve(owner + ".laptop.json");
            if (!Files.exists(row)) {
                try (var found = Files.walk(stateDir)) {
                    row = found.filter(p -> p.getFileName().toString().equals(owner + ".laptop.json")).findFirst().orElseThrow();
                }
            }
            byte[] good = Files.readAllBytes(row);
            String human = "{\"idpToken\":\"" + idp.token("alice", 600) + "\",\"actor\":\"laptop\"}";
            String pathHint = stateDir.toAbsolutePath() + "/idp-keys.json (java.nio.file.AccessDeniedException)";
            JwksSource failing = uri -> {
                throw new CotalException(ErrorCode.UNAVAILABLE, "cannot read " + pathHint);
            };
            InetSocketAddress anyPort = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
            try (TokenExchange exchange = TokenExchange.start(ExchangeOptions.builder().plane(plane).stateDir(stateDir)
                    .publicAddress(anyPort).build())) {
                String url = exchange.publicUrl().orElseThrow() + "/exchange";
                assertEquals(200, post(url, human).statusCode(), "the row reads: the exchange works");

                Files.delete(row);
                Files.createDirectory(row); // unreadable: the ledger's cause names the path and the exception
                assertClean(post(url, human), 503, "an unreadable ledger row");

                Files.delete(row);
                Files.write(row, "{\"ver\":1,\"owner\":\"x\"".getBytes(StandardCharsets.UTF_8));
                assertClean(post(url, human), 500, "a corrupt ledger row");

                Files.delete(row);
                Path elsewhere = Files.write(stateDir.resolve("planted.json"), good);
                Files.createSymbolicLink(row, elsewhere);
                assertClean(post(url, human), 403, "a symlinked ledger row (refused naming the path)");
            }
            try (TokenExchange exchange = TokenExchange.start(ExchangeOptions.builder().plane(plane).stateDir(stateDir)
                    .publicAddress(anyPort).jwks(failing).build())) {
                String face = exchange.publicUrl().orElseThrow();
                assertClean(post(face + "/exchange", human), 503, "a failing IdP key source on /exchange");
                assertClean(post(face + ServiceEndpointHostClient.HOST_ROUTE, "{\"idpToken\":\"" + idp.token("alice", 600)
                        + "\",\"request\":{\"kind\":\"name-read\",\"name\":\"forecast\"}}"), 503,
                        "a failing IdP key source on the host route");
            }
        }
    }

    @Test
    void aRefusedBudgetAnswers429WithItsMessageOnBothRoutes(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        String limit = "write budget: at most 100 credential rows per principal per minute";
        JwksSource exhausted = uri -> {
            throw new CotalException(ErrorCode.RESOURCE_EXHAUSTED, limit);
        };
        try (TestIdp idp = new TestIdp();
             AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).serviceEndpoints(true).build());
             TokenExchange exchange = TokenExchange.start(ExchangeOptions.builder().plane(plane).stateDir(stateDir)
                     .publicAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).jwks(exhausted)
                     .limits(FaceLimits.DEFAULT.withRefusalsPerMinute(1)).build())) {
            IdpPin.pin(stateDir, idp.url());
            String face = exchange.publicUrl().orElseThrow();
            for (int i = 0; i < 3; i++) { // not counted as refused exchanges: the throttle (1 a minute) never engages
                HttpResponse<String> minted = post(face + "/exchange", "{\"idpToken\":\"" + idp.token("alice", 600)
                        + "\",\"actor\":\"laptop\"}");
                assertEquals(429, minted.statusCode(), minted.body());
                assertEquals(limit, new com.fasterxml.jackson.databind.ObjectMapper().readTree(minted.body()).path("error")
                        .asText());
            }
            HttpResponse<String> hosted = post(face + ServiceEndpointHostClient.HOST_ROUTE, "{\"idpToken\":\""
                    + idp.token("alice", 600) + "\",\"request\":{\"kind\":\"name-read\","
                    + "\"name\":\"forecast\"}}");
            assertEquals(429, hosted.statusCode(), hosted.body());
            assertEquals(limit, new com.fasterxml.jackson.databind.ObjectMapper().readTree(hosted.body()).path("error")
                    .asText());
        }
    }
}
