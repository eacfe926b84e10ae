package ai.cotal.auth.service;

import ai.cotal.auth.ActorTokens;
import ai.cotal.auth.Grant;
import ai.cotal.auth.InboxNonce;
import ai.cotal.auth.PlaneHealth;
import ai.cotal.auth.ServiceEndpoints;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import ai.cotal.testbroker.NatsBroker;
import io.nats.client.Nats;
import java.nio.file.Files;
import java.util.List;

/**
 * Run by {@link NoMicrometerBrokerTest} in a JVM whose class path has no Micrometer: a stock
 * service without a registry starts, exchanges, admits a connect through the callout, answers
 * its loopback health and closes. Any reach for a Micrometer class fails with
 * {@link NoClassDefFoundError} and a non-zero exit. Prints {@code ok} at the end.
 */
public final class NoMicrometerMain {
    private NoMicrometerMain() {
    }

    public static void main(String[] args) throws Exception {
        try {
            Class.forName("io.micrometer.core.instrument.MeterRegistry");
            System.out.println("micrometer is on the class path: this run proves nothing");
            System.exit(3);
        } catch (ClassNotFoundException expected) {
            // the point of the run
        }
        MeteredService f = new MeteredService();
        try (NatsBroker nats = f.broker()) {
            var stateDir = Files.createTempDirectory("no-micrometer");
            try (AuthService service = AuthService.open(StockPlane.options(nats.url(), "alpha", stateDir, f.store)
                    .serviceEndpoints(ServiceEndpoints.normal()).build(), AuthServiceOptions.builder().build())) {
                service.plane().ledger().grantManagedActor(Principal.of(MeteredService.OWNER, MeteredService.AGENT),
                        Grant.of(List.of(), List.of(), List.of()), ActorTokens.tokenHash(MeteredService.AGENT_SECRET),
                        new LifecycleUid("abcdefghijklmnopqrstuvwxyz"));
                String capability = new com.fasterxml.jackson.databind.ObjectMapper().readTree(stateDir.resolve(
                        ai.cotal.auth.exchange.TokenExchange.DISCOVERY_FILE).toFile()).path("capability").asText();
                var answer = f.exchange(service, stateDir, "{\"owner\":\"" + MeteredService.OWNER + "\",\"actor\":\""
                        + MeteredService.AGENT + "\",\"actorToken\":\"" + MeteredService.AGENT_SECRET + "\"}", capability);
                require(answer.statusCode() == 200, "exchange answered " + answer.statusCode());
                String bearer = new com.fasterxml.jackson.databind.ObjectMapper().readTree(answer.body()).path("token").asText();
                String nonce = InboxNonce.forPrincipal(Principal.of(MeteredService.OWNER, MeteredService.AGENT));
                Nats.connect(new io.nats.client.Options.Builder().server(nats.url())
                        .authHandler(f.callout.sentinelCreds().authHandler()).token(bearer.toCharArray())
                        .connectionName(nonce).inboxPrefix(InboxNonce.inboxPrefix(nonce))
                        .maxControlLine(ai.cotal.core.config.ServerConfig.MAX_CONTROL_LINE).noReconnect().build()).close();
                require(f.health(service.loopbackUrl()).body().contains("\"ok\":true"), "health is ok");
                require(service.plane().health().state() == PlaneHealth.State.OPEN, "the plane is open");
            }
        }
        System.out.println("ok");
        System.exit(0);
    }

    private static void require(boolean condition, String what) {
        if (!condition) {
            System.out.println("failed: " + what);
            System.exit(4);
        }
    }
}
