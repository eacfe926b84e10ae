package ai.cotal.cli;

import ai.cotal.testbroker.oidc.OidcTestProvider;
import ai.cotal.auth.Grant;
import ai.cotal.auth.IdpPin;
import ai.cotal.auth.InboxNonce;
import ai.cotal.auth.ServiceEndpoints;
import ai.cotal.auth.SpaceProvisioning;
import ai.cotal.auth.exchange.JoinBundle;
import ai.cotal.auth.exchange.TokenExchange;
import ai.cotal.auth.micrometer.MicrometerSink;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.service.AuthService;
import ai.cotal.auth.service.AuthServiceOptions;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.id.Actor;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.servicehost.ServiceEndpointHostClient;
import ai.cotal.servicehost.Views;
import ai.cotal.testbroker.BackendChoice;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.workspace.FileSecretStore;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * The demo: the project's nats-server, a fresh space provisioned into a temporary root (file
 * secret store), the stock auth service with service endpoints, a local identity provider, and
 * register, decide, caller-grant, instance-read, name-bind and revoke through the HTTP routes,
 * each answer printed as a table row. With an external OpenID Connect issuer, that issuer is
 * pinned instead and its ID token signs in (never printed). Cleans up everything it started.
 */
final class ServiceEndpointDemo {
    private static final String SPACE = "demo";
    private final PrintStream out;
    private final DemoCommand.Oidc oidc;
    private final SecureRandom random = new SecureRandom();

    ServiceEndpointDemo(PrintStream out) {
        this(out, null);
    }

    /** {@code oidc} null: a local identity provider signs alice in; otherwise that issuer and its ID token. */
    ServiceEndpointDemo(PrintStream out, DemoCommand.Oidc oidc) {
        this.out = out;
        this.oidc = oidc;
    }

    void run() throws Exception {
        long started = System.nanoTime();
        Path root = Files.createTempDirectory("cotal-auth-demo");
        Clock clock = Clock.systemUTC();
        try {
            SpaceAuth space = SpaceAuth.create(SPACE, clock);
            CalloutAuth callout = CalloutAuth.create(SPACE, space.broker(), space.account().accountPublicKey(), clock);
            FileSecretStore secrets = new FileSecretStore(root);
            SpaceProvisioning.forSpace(space, callout).write(secrets); // every secret the service needs
            out.println("cotal-auth demo: space \"" + SPACE + "\" provisioned in " + root);
            try (NatsBroker nats = NatsBroker.start(BackendChoice.detect(), b -> ServerConfig.render(space.broker(),
                    List.of(space.account()), ServerConfigOptions.builder().transport(Transport.plaintext())
                            .storeDir(b.storeDir()).extraAccounts(List.of(callout.jwt())).build()));
                 OidcTestProvider idp = oidc == null ? new OidcTestProvider() : null) {
                Path stateDir = root.resolve("state");
                IdpPin pin;
                Callable<String> signIn;
                String subject;
                if (oidc == null) {
                    out.println("nats-server " + nats.version() + " at " + nats.url() + "; identity provider at " + idp.stockUrl());
                    pin = IdpPin.pin(stateDir, idp.stockUrl());
                    signIn = () -> idp.stockToken("alice");
                    subject = "alice";
                } else {
                    out.println("nats-server " + nats.version() + " at " + nats.url() + "; OpenID Connect issuer "
                            + oidc.issuer() + " (client id " + oidc.clientId() + ")");
                    pin = IdpPin.pinOidc(stateDir, oidc.issuer(), oidc.clientId(), oidc.algorithms());
                    signIn = oidc::idToken;
                    subject = oidc.subject(); // unverified: the exchange's answer below must name the same owner
                }
                io.micrometer.core.instrument.simple.SimpleMeterRegistry meters
                        = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
                try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(AuthPlaneOptions.builder().server(nats.url())
                        .space(SPACE).stateDir(stateDir).secretStore(secrets).signer(space.strip()).callout(callout)
                        .serviceEndpoints(ServiceEndpoints.normal()).meterSink(MicrometerSink.of(meters)).build());
                     AuthService service = AuthService.start(plane, AuthServiceOptions.builder()
                        .publicAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build())) {
                    Owner owner = service.plane().deriveOwner(pin.issuer(), subject);
                    Grant none = Grant.of(List.of(), List.of(), List.of());
                    service.plane().ledger().grantActor(new Principal(owner, new Actor("laptop")), none);
                    service.plane().ledger().grantActor(new Principal(owner, new Actor("phone")), none);
                    out.println("auth service ready at " + service.loopbackUrl() + "; " + (oidc == null ? "alice"
                            : "the token's subject") + " is owner " + owner);
                    drive(service, stateDir, signIn.call(), owner.value());
                    join(service.publicUrl().orElseThrow(), signIn, owner.value());
                }
                DemoCounters.print(out, meters);
            }
            out.printf("%ndemo finished in %.1f s; everything it started is stopped%n", (System.nanoTime() - started) / 1e9);
        } finally {
            try (Stream<Path> files = Files.walk(root)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private void drive(AuthService service, Path stateDir, String token, String owner) throws Exception {
        String capability = new ObjectMapper().readTree(stateDir.resolve(TokenExchange.DISCOVERY_FILE).toFile())
                .path("capability").asText();
        ServiceEndpointHostClient client = new ServiceEndpointHostClient(URI.create(service.loopbackUrl()),
                HttpClient.newHttpClient(), Duration.ofSeconds(15));
        String instance = token(26, "abcdefghijklmnopqrstuvwxyz0123456789");
        out.println();
        out.printf("| %-14s | %-9s | %-26s | %s%n", "step", "status", "operationId", "detail");
        out.printf("|%s|%s|%s|%s%n", "-".repeat(16), "-".repeat(11), "-".repeat(28), "-".repeat(40));
        HostResult r = client.invoke(token, new HostRequest.Register(requestId(), "weather", instance,
                "sha256:" + "c".repeat(64), List.of("ask", "stream")), capability);
        row("register", r, "proposal " + r.proposal().state().wire() + ", ceiling " + r.proposal().callerCeiling());
        r = client.invoke(token, new HostRequest.Decide(requestId(), "weather", instance,
                HostRequest.Decision.APPROVE), capability);
        row("decide", r, r.completion().wire() + ", gate revision " + r.approvedGateRevision());
        r = client.invoke(token, new HostRequest.CallerGrant(requestId(), "weather", instance,
                new HostRequest.Grantee(owner, "phone"), List.of("ask")), capability);
        row("caller-grant", r, "grant " + r.grant().grantId() + " " + r.grant().capabilities() + " to phone");
        r = client.invoke(token, new HostRequest.InstanceRead("weather", instance), capability);
        Views.Instance view = r.instance();
        row("instance-read", r, view.registrationState().wire() + ", gate " + view.gate().state().wire()
                + ", assignment " + (view.assignment() == null ? "none" : view.assignment().wire()));
        r = client.invoke(token, new HostRequest.NameBind(requestId(), "forecast", "weather", owner,
                "dns:forecast.example", 0), capability);
        row("name-bind", r, "forecast -> weather (as the operator, on loopback)");
        r = client.invoke(token, new HostRequest.Revoke(requestId(), "weather", instance), capability);
        row("revoke", r, r.completion().wire() + ", denyNew " + r.denyNew().wire() + " (its owner, on either face)");
    }

    /**
     * A client that knows only the public URL joins (SPEC §13.17): it reads the join bundle, signs
     * in at the IdP the bundle names, exchanges at the bundle's URL and connects to the bundle's
     * server with the bundle's sentinel and the bearer, through the auth callout.
     */
    private void join(String publicUrl, Callable<String> signIn, String expectedOwner) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        ObjectMapper json = new ObjectMapper();
        out.println();
        out.println("joining with nothing but the public URL " + publicUrl + ":");
        out.printf("| %-8s | %s%n", "step", "detail");
        out.printf("|%s|%s%n", "-".repeat(10), "-".repeat(60));
        JsonNode bundle = json.readTree(http.send(HttpRequest.newBuilder(URI.create(publicUrl + JoinBundle.ROUTE)).build(),
                HttpResponse.BodyHandlers.ofString()).body());
        JsonNode idpPart = bundle.path("userAuth").path("idp");
        String exchangeUrl = bundle.path("userAuth").path("endpoints").path("url").asText() + "/exchange";
        out.printf("| %-8s | GET %s: space %s, server %s, tlsRequired %s, idp %s, sentinel credential%n", "bundle",
                JoinBundle.ROUTE, bundle.path("space").asText(), bundle.path("server").asText(),
                bundle.path("tlsRequired").asBoolean(), idpPart.path("url").asText());
        String idpToken = signIn.call(); // signing in at the bundle's IdP
        HttpResponse<String> exchanged = http.send(HttpRequest.newBuilder(URI.create(exchangeUrl))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json.writeValueAsString(
                        java.util.Map.of("idpToken", idpToken, "actor", "laptop")))).build(), HttpResponse.BodyHandlers.ofString());
        if (exchanged.statusCode() != 200) {
            throw new IllegalStateException("the exchange answered " + exchanged.statusCode());
        }
        JsonNode token = json.readTree(exchanged.body());
        String owner = token.path("owner").asText();
        if (!owner.equals(expectedOwner)) {
            throw new IllegalStateException("the exchange answered owner " + owner + ", not " + expectedOwner);
        }
        out.printf("| %-8s | POST %s: a bearer for %s/laptop until %d%n", "exchange", exchangeUrl, owner,
                token.path("exp").asLong());
        String nonce = InboxNonce.forPrincipal(Principal.of(owner, "laptop"));
        try (Connection joined = NatsConnector.builder().server(bundle.path("server").asText())
                .creds(Creds.parse(bundle.path("sentinelCreds").asText())).bearer(token.path("token").asText())
                .label(nonce).inboxPrefix(InboxNonce.inboxPrefix(nonce)).maxReconnects(0).build().connect()) {
            joined.flush(Duration.ofSeconds(5));
            out.printf("| %-8s | %s with the sentinel and the bearer: admitted by the callout (%s)%n", "connect",
                    bundle.path("server").asText(), joined.getStatus());
        }
    }

    private void row(String step, HostResult r, String detail) {
        out.printf("| %-14s | %-9s | %-26s | %s%n", step, r.status().wire(), r.operationId() == null ? "-" : r.operationId(),
                detail);
        if (r.status() == HostResult.Status.DENIED || r.status() == HostResult.Status.HELD) {
            throw new IllegalStateException(step + " answered " + r.status().wire() + ": " + r.reason());
        }
    }

    private static String requestId() {
        return ServiceEndpointHostClient.newRequestId();
    }

    private String token(int n, String alphabet) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return b.toString();
    }
}
