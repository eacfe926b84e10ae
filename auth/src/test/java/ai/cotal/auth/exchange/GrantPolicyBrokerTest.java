package ai.cotal.auth.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.Grant;
import ai.cotal.auth.GrantPolicy;
import ai.cotal.auth.InboxNonce;
import ai.cotal.auth.SpaceProvisioning;
import ai.cotal.auth.micrometer.MicrometerSink;
import ai.cotal.auth.service.AuthService;
import ai.cotal.auth.service.AuthServiceOptions;
import ai.cotal.auth.service.StockPlane;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import ai.cotal.core.id.SpaceName;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.testbroker.oidc.OidcTestProvider;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JWSAlgorithm;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.Subscription;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stock service's grant policy (SPEC §13.18) against the test OpenID provider, through real
 * exchanges on the loopback face and a real broker: a subject with the mapped realm role is
 * granted the rule's row at its first exchange and connects through the callout with the bearer
 * (the broker delivers on the granted channel); the same claims again write nothing; a changed
 * policy re-grants with a fresh lifecycle uid; a token without the role is refused, the row is
 * revoked and the broker refuses the earlier bearer; a hand grant is never touched.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class GrantPolicyBrokerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Clock clock = Clock.systemUTC();
    private final SpaceAuth auth = SpaceAuth.create("alpha", clock);
    private final CalloutAuth callout = CalloutAuth.create("alpha", auth.broker(), auth.account().accountPublicKey(), clock);
    private final InMemorySecretStore store = new InMemorySecretStore();
    private final HttpClient http = HttpClient.newHttpClient();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @TempDir
    Path stateDir;

    private static GrantPolicy policy(String publish) {
        return GrantPolicy.parse("{\"rules\":[{\"name\":\"staff\",\"when\":{\"realmRole\":\"cotal-user\"},"
                + "\"actors\":[\"laptop\"],\"allowSubscribe\":[\"general\"],\"allowPublish\":[\"" + publish + "\"]}]}",
                "grantPolicy");
    }

    private AuthService start(NatsBroker nats, OidcTestProvider idp, GrantPolicy policy) {
        AuthPlaneOptions plane = StockPlane.options(nats.url(), "alpha", stateDir, store)
                .meterSink(MicrometerSink.of(registry)).build();
        return AuthService.open(plane, AuthServiceOptions.builder().oidc(idp.issuer(), OidcTestProvider.CLIENT_ID, List.of())
                .grantPolicy(policy).build());
    }

    private static String token(OidcTestProvider idp, String subject, List<String> roles) {
        return idp.sign(JWSAlgorithm.RS256, idp.claims(subject).claim("realm_access", Map.of("roles", roles)).build());
    }

    private HttpResponse<String> exchange(AuthService service, String idpToken) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(service.loopbackUrl() + "/exchange"))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + service.capability())
                .POST(HttpRequest.BodyPublishers.ofString("{\"idpToken\":\"" + idpToken + "\",\"actor\":\"laptop\"}"))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    private double count(String action) {
        Counter counter = registry.find("cotal.auth.policy.grants").tag("action", action).counter();
        return counter == null ? 0 : counter.count();
    }

    private Connection connect(NatsBroker nats, Principal principal, String bearer) throws Exception {
        String nonce = InboxNonce.forPrincipal(principal);
        return Nats.connect(new Options.Builder().server(nats.url())
                .authHandler(Nats.staticCredentials(callout.sentinelCreds().text().getBytes(StandardCharsets.UTF_8)))
                .token(bearer.toCharArray()).connectionName(nonce).inboxPrefix(InboxNonce.inboxPrefix(nonce))
                .maxControlLine(ServerConfig.MAX_CONTROL_LINE).connectionTimeout(Duration.ofSeconds(5)).noReconnect().build());
    }

    @Test
    void aMappedRoleIsGrantedAtItsFirstExchangeAndRevokedWhenTheRoleIsGone(NatsBrokers brokers) throws Exception {
        SpaceProvisioning.forSpace(auth, callout).write(store);
        NatsBroker nats = brokers.start(b -> ServerConfig.render(auth.broker(), List.of(auth.account()),
                ServerConfigOptions.builder().transport(Transport.plaintext()).storeDir(b.storeDir())
                        .extraAccounts(List.of(callout.jwt())).build()));
        try (OidcTestProvider idp = new OidcTestProvider()) {
            Principal alice;
            Principal bob;
            String firstUid;
            String bearer;
            try (AuthService service = start(nats, idp, policy("general"))) {
                Owner aliceOwner = service.plane().deriveOwner(idp.issuer(), "alice");
                alice = new Principal(aliceOwner, Principal.of(aliceOwner.value(), "laptop").actor());
                bob = Principal.of(service.plane().deriveOwner(idp.issuer(), "bob").value(), "laptop");
                ActorRow hand = service.plane().ledger().grantActor(bob, Grant.of(List.of("ops"), List.of(), List.of()));

                HttpResponse<String> first = exchange(service, token(idp, "alice", List.of("offline_access", "cotal-user")));
                assertEquals(200, first.statusCode(), first.body());
                ActorRow granted = service.plane().ledger().find(alice).orElseThrow();
                assertEquals(Optional.of("policy:staff"), granted.label());
                assertEquals(List.of("general"), granted.allowPublish());
                assertEquals(List.of("general"), granted.allowSubscribe());
                assertEquals(1.0, count("granted"), "one automatic grant, counted");
                firstUid = granted.lifecycleUid().value();

                bearer = JSON.readTree(first.body()).get("token").asText();
                String subject = SpaceName.of("alpha", "space").subjectPrefix() + ".chat." + aliceOwner.value() + ".laptop.general";
                try (Connection joined = connect(nats, alice, bearer)) {
                    Subscription sub = joined.subscribe(SpaceName.of("alpha", "space").subjectPrefix() + ".chat.*.*.general");
                    joined.flush(Duration.ofSeconds(5));
                    joined.publish(subject, "hi".getBytes(StandardCharsets.UTF_8));
                    assertEquals("hi", new String(sub.nextMessage(Duration.ofSeconds(5)).getData(), StandardCharsets.UTF_8),
                            "the policy's grant opens its channel through the callout");
                }

                HttpResponse<String> again = exchange(service, token(idp, "alice", List.of("cotal-user")));
                assertEquals(200, again.statusCode(), again.body());
                assertEquals(firstUid, service.plane().ledger().find(alice).orElseThrow().lifecycleUid().value(),
                        "the same grant is not written again");
                assertEquals(1.0, count("granted"));

                HttpResponse<String> bobs = exchange(service, token(idp, "bob", List.of()));
                assertEquals(200, bobs.statusCode(), "a hand grant needs no role: " + bobs.body());
                assertEquals(hand, service.plane().ledger().find(bob).orElseThrow(), "the policy leaves a hand grant alone");
            }

            try (AuthService service = start(nats, idp, policy("announce"))) { // the policy changed
                HttpResponse<String> regrant = exchange(service, token(idp, "alice", List.of("cotal-user")));
                assertEquals(200, regrant.statusCode(), regrant.body());
                ActorRow changed = service.plane().ledger().find(alice).orElseThrow();
                assertNotEquals(firstUid, changed.lifecycleUid().value(), "a changed grant is a fresh lifecycle");
                assertEquals(List.of("announce"), changed.allowPublish());
                assertEquals(1.0, count("regranted"));
                bearer = JSON.readTree(regrant.body()).get("token").asText();

                HttpResponse<String> removed = exchange(service, token(idp, "alice", List.of("offline_access")));
                assertEquals(401, removed.statusCode(), removed.body());
                JsonNode error = JSON.readTree(removed.body());
                assertTrue(error.get("error").asText().contains("the grant policy no longer admits it"), removed.body());
                assertTrue(service.plane().ledger().find(alice).isEmpty(), "the policy's row is revoked");
                assertEquals(1.0, count("revoked"));
                String revokedBearer = bearer;
                Exception refused = assertThrows(Exception.class, () -> connect(nats, alice, revokedBearer).close());
                assertTrue(String.valueOf(refused.getMessage()).contains("Authorization Violation"), refused.toString());
                HttpResponse<String> after = exchange(service, token(idp, "alice", List.of()));
                assertEquals(401, after.statusCode());
                assertTrue(after.body().contains("actor laptop is not granted"), after.body());

                HttpResponse<String> bobs = exchange(service, token(idp, "bob", List.of("offline_access")));
                assertEquals(200, bobs.statusCode(), bobs.body());
                assertEquals(List.of("ops"), service.plane().ledger().find(bob).orElseThrow().scope(), "still the hand grant");
            }
        }
    }
}
