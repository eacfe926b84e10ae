package ai.cotal.auth.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ActorTokens;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.Grant;
import ai.cotal.auth.PlaneFixture;
import ai.cotal.core.id.Principal;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #16.1 through the real route: a principal past its mint budget gets 429 naming the limit
 * on {@code /exchange}, nothing is written, the refusal is not counted by the refusal throttle,
 * and another principal still exchanges.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class ExchangeBudgetBrokerTest {
    private static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";
    private final PlaneFixture f = new PlaneFixture();
    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path stateDir;

    private HttpResponse<String> exchange(TokenExchange exchange, String actor, String token) throws Exception {
        String capability = new ObjectMapper().readTree(Files.readString(stateDir.resolve(TokenExchange.DISCOVERY_FILE)))
                .path("capability").asText();
        return http.send(HttpRequest.newBuilder(URI.create(exchange.loopbackUrl() + "/exchange"))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + capability)
                .POST(HttpRequest.BodyPublishers.ofString("{\"owner\":\"" + OWNER + "\",\"actor\":\"" + actor
                        + "\",\"actorToken\":\"" + token + "\"}")).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aPrincipalPastItsMintBudgetGets429NamingTheLimitAndAnotherStillExchanges(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).mintsPerPrincipalPerMinute(2)
                .build()); Connection admin = f.admin(nats);
             TokenExchange exchange = TokenExchange.start(ExchangeOptions.builder().plane(plane).stateDir(stateDir)
                     .limits(FaceLimits.DEFAULT.withRefusalsPerMinute(3)).build())) {
            String flooder = ActorTokens.newActorToken();
            String other = ActorTokens.newActorToken();
            Grant grant = Grant.of(List.of(), List.of(), List.of());
            plane.ledger().grantManagedActor(Principal.of(OWNER, "agent1"), grant, ActorTokens.tokenHash(flooder),
                    ActorTokens.newLifecycleUid());
            plane.ledger().grantManagedActor(Principal.of(OWNER, "agent2"), grant, ActorTokens.tokenHash(other),
                    ActorTokens.newLifecycleUid());
            assertEquals(200, exchange(exchange, "agent1", flooder).statusCode());
            assertEquals(200, exchange(exchange, "agent1", flooder).statusCode());
            long written = admin.jetStreamManagement().getStreamInfo("KV_cotal_auth_alpha").getStreamState()
                    .getLastSequence();
            for (int i = 0; i < 5; i++) { // more than the refusal throttle's 3: a budget refusal is not a refused guess
                HttpResponse<String> over = exchange(exchange, "agent1", flooder);
                assertEquals(429, over.statusCode(), over.body());
                assertTrue(over.body().contains("credential budget: this principal made 2 credentials in the last minute"
                        + " (limit 2 per principal per minute)"), over.body());
            }
            assertEquals(written, admin.jetStreamManagement().getStreamInfo("KV_cotal_auth_alpha").getStreamState()
                    .getLastSequence(), "no credential row was written for a refused exchange");
            assertEquals(200, exchange(exchange, "agent2", other).statusCode(), "another principal still exchanges");
        }
    }
}
