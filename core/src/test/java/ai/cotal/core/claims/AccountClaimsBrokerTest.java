package ai.cotal.core.claims;

import static ai.cotal.core.BrokerClients.connect;
import static ai.cotal.core.BrokerClients.refusedConnect;
import static ai.cotal.core.claims.ClaimsFixture.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.BrokerClients.Client;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.Nats;
import io.nats.client.api.StreamConfiguration;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Spaces added, retired and reinstated on a running full-resolver broker, without a reload. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class AccountClaimsBrokerTest {
    private final ClaimsFixture f = new ClaimsFixture();

    @Test
    void aPushWithoutItsBrokerRefusesClearlyAndThePushAfterARestartLands(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> f.config(b, 100));
        try (Connection system = f.system(nats)) {
            java.util.concurrent.CompletableFuture<Void> closed = new java.util.concurrent.CompletableFuture<>();
            system.addConnectionListener((conn, type) -> {
                if (type == io.nats.client.ConnectionListener.Events.CLOSED) {
                    closed.complete(null);
                }
            });
            nats.kill(); // the broker dies under the claims client (issue #11 part 2)
            closed.get(10, java.util.concurrent.TimeUnit.SECONDS); // the client never reconnects: its connection closes
            ai.cotal.core.CotalException refused = org.junit.jupiter.api.Assertions.assertThrows(
                    ai.cotal.core.CotalException.class, () -> new AccountClaims(system, f.broker, f.clock)
                            .push(f.beta.jwt(), Set.of(nats.serverId()), WAIT));
            assertEquals(ai.cotal.core.ErrorCode.UNAVAILABLE, refused.code(), refused.getMessage());
            assertTrue(refused.getMessage().contains("nothing was sent"), refused.getMessage());
        }
        nats.restart();
        try (Connection system = f.system(nats)) {
            PushResult result = new AccountClaims(system, f.broker, f.clock).push(f.beta.jwt(), Set.of(nats.serverId()), WAIT);
            assertEquals(List.of(nats.serverId()), result.servers(), "the push after the restart landed");
        }
        try (Client user = connect(nats, f.mint(f.beta, CredentialProfile.OBSERVER, MintOptions.defaults()))) {
            assertEquals(Connection.Status.CONNECTED, user.connection().getStatus());
        }
    }

    /**
     * {@code system}, except that the claim update is sent to an inbox of its own: once the server
     * has answered it (the claim landed) the broker is killed, and the answer never reaches the
     * caller.
     */
    private static Connection answerLostAfterTheUpdate(Connection system, NatsBroker nats) {
        return (Connection) java.lang.reflect.Proxy.newProxyInstance(Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("publish") && args.length == 3 && args[0] instanceof String subject
                            && subject.endsWith(".CLAIMS.UPDATE")) {
                        String inbox = system.createInbox();
                        io.nats.client.Subscription own = system.subscribe(inbox);
                        system.publish(subject, inbox, (byte[]) args[2]);
                        assertTrue(own.nextMessage(Duration.ofSeconds(5)) != null, "the server answered the update");
                        own.unsubscribe();
                        nats.kill();
                        return null;
                    }
                    try {
                        return method.invoke(system, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Test
    void aBrokerKilledMidPushGivesATypedUnknownOutcomeAndTheSamePushConvergesAfterARestart(NatsBrokers brokers)
            throws Exception {
        NatsBroker nats = brokers.start(b -> f.config(b, 100));
        try (Connection system = f.system(nats)) {
            ai.cotal.core.CotalException unknown = org.junit.jupiter.api.Assertions.assertThrows(
                    ai.cotal.core.CotalException.class, () -> new AccountClaims(answerLostAfterTheUpdate(system, nats),
                            f.broker, f.clock).push(f.beta.jwt(), Set.of(nats.serverId()), WAIT));
            assertEquals(ai.cotal.core.ErrorCode.UNAVAILABLE, unknown.code(), unknown.getMessage()); // closed, no reconnect
            assertFalse(unknown.getMessage().contains("nothing was sent"), "the update was sent: " + unknown.getMessage());
            assertTrue(unknown.getMessage().contains("push the same claim again"), unknown.getMessage());
        }
        nats.restart();
        try (Connection system = f.system(nats)) {
            AccountClaims claims = new AccountClaims(system, f.broker, f.clock);
            assertEquals(java.util.Optional.of(f.beta.jwt()), claims.lookup(f.beta.accountPublicKey(), WAIT),
                    "the update landed before the kill");
            PushResult again = claims.push(f.beta.jwt(), Set.of(nats.serverId()), WAIT);
            assertEquals(List.of(nats.serverId()), again.servers(), "pushing the same claim again converges");
        }
        try (Client user = connect(nats, f.mint(f.beta, CredentialProfile.OBSERVER, MintOptions.defaults()))) {
            assertEquals(Connection.Status.CONNECTED, user.connection().getStatus());
        }
    }

    @Test
    void aLoneServerIsItsOwnClusterOfOneAndAGivenMemberThatNeverAnswersIsMissing(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> f.config(b, 100));
        try (Connection system = f.system(nats)) {
            AccountClaims claims = new AccountClaims(system, f.broker, f.clock);
            ClusterMembers members = claims.members(WAIT);
            assertEquals(ClusterMembers.Source.LONE_SERVER, members.source());
            assertEquals(Set.of(nats.serverId()), members.names(), "a server without server_name is named by its id");
            PushResult result = claims.push(f.beta.jwt(), members, WAIT);
            assertEquals(List.of(nats.serverId()), result.serverNames());
            assertEquals(List.of(), result.missing());

            PushIncomplete incomplete = org.junit.jupiter.api.Assertions.assertThrows(PushIncomplete.class,
                    () -> claims.push(f.beta.jwt(), ClusterMembers.of(List.of(nats.serverId(), "n9")), Duration.ofMillis(500)));
            assertEquals(List.of("n9"), incomplete.missing());
            assertEquals(List.of(nats.serverId()), incomplete.result().serverNames(), "the live server answered");
            assertEquals(List.of(f.alpha.accountPublicKey(), f.beta.accountPublicKey()),
                    claims.reconcile(List.of(f.alpha.jwt(), f.beta.jwt()), members, WAIT).unchanged());
        }
    }

    @Test
    void pushAddsASpaceWithoutAReload(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> f.config(b, 100));
        long mark = nats.log().mark();
        try (Connection system = f.system(nats)) {
            PushResult result = new AccountClaims(system, f.broker, f.clock).push(f.beta.jwt(), Set.of(nats.serverId()), WAIT);
            assertEquals(List.of(nats.serverId()), result.servers());
            assertEquals(f.beta.accountPublicKey(), result.account());
        }
        try (Client user = connect(nats, f.mint(f.beta, CredentialProfile.OBSERVER, MintOptions.defaults()))) {
            assertEquals(Connection.Status.CONNECTED, user.connection().getStatus());
        }
        assertEquals(nats.config(), Files.readString(nats.workDir().resolve("nats.conf")), "the config file is unchanged");
        assertFalse(nats.log().containsSince(mark, "Reloaded server configuration"), "the broker did not reload");
    }

    @Test
    void retireClosesLiveConnectionsRefusesNewOnesAndKeepsTheData(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> f.config(b, 100));
        try (Connection system = f.system(nats)) {
            AccountClaims claims = new AccountClaims(system, f.broker, f.clock);
            claims.push(f.beta.jwt(), Set.of(nats.serverId()), WAIT);
            try (Client provisioner = connect(nats, f.mint(f.beta, CredentialProfile.PROVISIONER, MintOptions.defaults()));
                 Client agent = connect(nats, f.mint(f.beta, CredentialProfile.AGENT, MintOptions.builder().owner("o")
                         .actor("a").lifecycleUid("abcdefghijklmnopqrstuvwxyz").allowPublish(List.of("general")).build()))) {
                provisioner.connection().jetStreamManagement().addStream(StreamConfiguration.builder().name("CHAT_beta")
                        .subjects("cotal.beta.chat.>").build());
                agent.connection().publish("cotal.beta.chat.o.a.general", "kept".getBytes(StandardCharsets.UTF_8));
                agent.connection().flush(WAIT);
            }
            CompletableFuture<ConnectionListener.Events> closed = new CompletableFuture<>();
            Connection live = Nats.connect(ai.cotal.core.BrokerClients.options(nats,
                    f.mint(f.beta, CredentialProfile.OBSERVER, MintOptions.defaults())).connectionListener((conn, event) -> {
                        if (event == ConnectionListener.Events.CLOSED || event == ConnectionListener.Events.DISCONNECTED) {
                            closed.complete(event);
                        }
                    }).build());
            long now = f.clock.instant().getEpochSecond();
            String retired = AccountClaims.retire(f.broker, f.beta.jwt(), now);
            claims.push(retired, Set.of(nats.serverId()), WAIT);
            closed.get(1, TimeUnit.SECONDS);
            live.close();
            String refusal = refusedConnect(nats, f.mint(f.beta, CredentialProfile.OBSERVER, MintOptions.defaults())).getMessage();
            assertTrue(refusal.contains("Authorization Violation") || refusal.contains("maximum"), refusal);

            claims.push(AccountClaims.reinstate(f.broker, retired, now + 1), Set.of(nats.serverId()), WAIT);
            Creds after = f.mint(f.beta, CredentialProfile.PROVISIONER, MintOptions.builder()
                    .clock(Clock.offset(f.clock, Duration.ofSeconds(2))).build());
            try (Client provisioner = connect(nats, after)) {
                assertEquals(1, provisioner.connection().jetStreamManagement().getStreamInfo("CHAT_beta")
                        .getStreamState().getMsgCount(), "the space's messages stay through retire and reinstate");
            }
        }
    }

    @Test
    void pushedClaimsSurviveARestartAndWinOverOlderPreloads(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> f.config(b, 100));
        String retiredAlpha = AccountClaims.retire(f.broker, f.alpha.jwt(), f.clock.instant().getEpochSecond());
        try (Connection system = f.system(nats)) {
            AccountClaims claims = new AccountClaims(system, f.broker, f.clock);
            claims.push(f.beta.jwt(), Set.of(nats.serverId()), WAIT);
            claims.push(retiredAlpha, Set.of(nats.serverId()), WAIT);
        }
        nats.stop();
        nats.restart();
        try (Connection system = f.system(nats)) {
            AccountClaims claims = new AccountClaims(system, f.broker, f.clock);
            assertEquals(f.beta.jwt(), claims.lookup(f.beta.accountPublicKey(), WAIT).orElseThrow());
            assertEquals(NatsJwt.decode(retiredAlpha).jti(),
                    NatsJwt.decode(claims.lookup(f.alpha.accountPublicKey(), WAIT).orElseThrow()).jti(),
                    "the pushed retire claim, newer than the config's preload, is what the broker serves");
        }
        try (Client user = connect(nats, f.mint(f.beta, CredentialProfile.OBSERVER, MintOptions.defaults()))) {
            assertEquals(Connection.Status.CONNECTED, user.connection().getStatus());
        }
    }

    @Test
    void reconcilePushesWhatAFreshDirectoryLacksAndReportsTheRest(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(b -> f.config(b, 100));
        try (Connection system = f.system(nats)) {
            AccountClaims claims = new AccountClaims(system, f.broker, f.clock);
            ReconcileReport first = claims.reconcile(List.of(f.alpha.jwt(), f.beta.jwt()), Set.of(nats.serverId()), WAIT);
            assertEquals(List.of(f.beta.accountPublicKey()), first.pushed());
            assertEquals(List.of(f.alpha.accountPublicKey()), first.unchanged());
            assertTrue(claims.list(WAIT).contains(f.beta.accountPublicKey()));

            ReconcileReport second = claims.reconcile(List.of(f.alpha.jwt()), Set.of(nats.serverId()), WAIT);
            assertEquals(List.of(), second.pushed());
            assertEquals(List.of(f.beta.accountPublicKey()), second.unexpected(), "reported, never deleted");
            assertTrue(claims.lookup(f.beta.accountPublicKey(), WAIT).isPresent());
        }
    }
}
