package ai.cotal.auth.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.Grant;
import ai.cotal.auth.IdpPin;
import ai.cotal.auth.InboxNonce;
import ai.cotal.auth.SpaceProvisioning;
import ai.cotal.auth.service.AuthService;
import ai.cotal.auth.service.AuthServiceOptions;
import ai.cotal.auth.service.StockPlane;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.id.Principal;
import ai.cotal.core.id.SpaceName;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.member.CotalMember;
import ai.cotal.member.MemberConnection;
import ai.cotal.member.MemberException;
import ai.cotal.member.JoinOptions;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.testbroker.oidc.KeycloakExtension;
import ai.cotal.testbroker.oidc.KeycloakRealm;
import ai.cotal.testbroker.oidc.KeycloakServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The member connector (SPEC §13.24) against the stock service, a real broker and Keycloak: a
 * member joins from the public URL with 20-s ID tokens and stays connected across three token
 * lifetimes while another member publishes every 100 ms, losing nothing; an ungranted actor is
 * refused with the service's text.
 */
@Tag("broker")
@ExtendWith({NatsBrokerExtension.class, KeycloakExtension.class})
class MemberSessionKeycloakBrokerTest {
    private static final String CLIENT = "cotal-space";
    private static final String PASSWORD = "alice-password-1";
    private static final Duration LIFETIME = Duration.ofSeconds(20);
    private final SpaceAuth auth = SpaceAuth.create("alpha", Clock.systemUTC());
    private final CalloutAuth callout = CalloutAuth.create("alpha", auth.broker(), auth.account().accountPublicKey(),
            Clock.systemUTC());
    private final InMemorySecretStore store = new InMemorySecretStore();

    @TempDir
    Path stateDir;

    private AuthService service(NatsBrokers brokers, KeycloakRealm realm) {
        SpaceProvisioning.forSpace(auth, callout).write(store);
        NatsBroker nats = brokers.start(b -> ServerConfig.render(auth.broker(), List.of(auth.account()), ServerConfigOptions
                .builder().transport(Transport.plaintext()).storeDir(b.storeDir()).extraAccounts(List.of(callout.jwt())).build()));
        AuthPlaneOptions plane = StockPlane.options(nats.url(), "alpha", stateDir, store).build();
        return AuthService.open(plane, AuthServiceOptions.builder().oidc(realm.issuer(), CLIENT, List.of("RS256"))
                .publicAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build());
    }

    private static JoinOptions member(AuthService service, String actor, KeycloakRealm realm) {
        return JoinOptions.builder(URI.create(service.publicUrl().orElseThrow()), actor,
                () -> realm.tokens(CLIENT, "alice", PASSWORD).idToken()).build();
    }

    @Test
    void aMemberStaysConnectedAcrossThreeIdTokenLifetimesLosingNoMessage(NatsBrokers brokers, KeycloakServer keycloak)
            throws Exception {
        KeycloakRealm realm = keycloak.realm("member-session");
        realm.client(CLIENT);
        String sub = realm.user("alice", PASSWORD);
        realm.tokenLifetime(LIFETIME);
        try (AuthService service = service(brokers, realm)) {
            String owner = service.plane().deriveOwner(IdpPin.read(stateDir).orElseThrow().issuer(), sub).value();
            Grant chat = Grant.of(List.of(), List.of("general"), List.of("general"));
            Principal laptop = Principal.of(owner, "laptop");
            Principal desk = Principal.of(owner, "desk");
            service.plane().ledger().grantActor(laptop, chat);
            service.plane().ledger().grantActor(desk, chat);
            String subject = chat.subjects(new SpaceName("alpha"), desk, InboxNonce.forPrincipal(desk)).publish().get(0);

            Map<Integer, AtomicInteger> received = new ConcurrentHashMap<>();
            AtomicLong lastArrival = new AtomicLong();
            AtomicLong largestGap = new AtomicLong();
            int sent = 0;
            Instant started;
            Instant firstExpiry;
            int renewals;
            try (MemberConnection listener = CotalMember.connect(member(service, "laptop", realm));
                 MemberConnection talker = CotalMember.connect(member(service, "desk", realm))) {
                assertEquals(owner, listener.owner(), "the owner derives from Keycloak's iss and sub");
                firstExpiry = listener.bearerExpiresAt();
                assertTrue(firstExpiry.isBefore(Instant.now().plus(LIFETIME).plusSeconds(2)), "the bearer ends with the ID token");
                listener.subscribe(subject, message -> {
                    long now = System.nanoTime();
                    long previous = lastArrival.getAndSet(now);
                    if (previous != 0) {
                        largestGap.accumulateAndGet(now - previous, Math::max);
                    }
                    received.computeIfAbsent(Integer.parseInt(new String(message.getData(), StandardCharsets.UTF_8)),
                            k -> new AtomicInteger()).incrementAndGet();
                });
                listener.connection().flush(Duration.ofSeconds(5));
                started = Instant.now();
                Instant stop = started.plus(LIFETIME.multipliedBy(3));
                Instant deadline = started.plus(LIFETIME.multipliedBy(6));
                long next = System.nanoTime();
                while ((Instant.now().isBefore(stop) || listener.renewals() < 3) && Instant.now().isBefore(deadline)) {
                    talker.publish(subject, Integer.toString(sent++).getBytes(StandardCharsets.UTF_8));
                    next += Duration.ofMillis(100).toNanos();
                    long wait = next - System.nanoTime();
                    if (wait > 0) {
                        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000)); // the publisher's cadence, not a synchronization
                    }
                }
                talker.connection().flush(Duration.ofSeconds(5));
                Instant settle = Instant.now().plusSeconds(10);
                final int total = sent;
                while (received.size() < total && Instant.now().isBefore(settle)) {
                    listener.connection().flush(Duration.ofSeconds(1)); // a round trip, until the last message is in
                }
                renewals = listener.renewals();
            }
            int duplicates = received.values().stream().mapToInt(c -> c.get() - 1).sum();
            System.out.printf("member session: %d messages over %d s, %d renewals, largest gap %d ms, %d duplicates%n",
                    sent, Duration.between(started, Instant.now()).toSeconds(), renewals,
                    Duration.ofNanos(largestGap.get()).toMillis(), duplicates);
            assertTrue(renewals >= 3, "renewed at least three times: " + renewals);
            assertTrue(Instant.now().isAfter(firstExpiry.plus(LIFETIME.multipliedBy(2))), "past three lifetimes of the first token");
            for (int i = 0; i < sent; i++) {
                assertTrue(received.containsKey(i), "message " + i + " of " + sent + " was lost");
            }
        }
    }

    @Test
    void anActorWithoutAGrantIsRefusedWithTheServicesText(NatsBrokers brokers, KeycloakServer keycloak) {
        KeycloakRealm realm = keycloak.realm("member-refused");
        realm.client(CLIENT);
        realm.user("alice", PASSWORD);
        try (AuthService service = service(brokers, realm)) {
            MemberException refused = assertThrows(MemberException.class, () -> CotalMember.connect(member(service, "laptop",
                    realm)).close());
            assertEquals("unauthenticated", refused.code(), refused.getMessage());
            assertEquals("exchange: actor laptop is not granted", refused.getMessage());
            assertTrue(refused.getMessage().startsWith("exchange: "), refused.getMessage());
        }
    }
}
