package ai.cotal.auth.internal.plane;

import ai.cotal.auth.internal.connect.AuthorityConnection;
import ai.cotal.auth.internal.connect.AuthorityRole;
import ai.cotal.auth.internal.plane.CredentialRows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.stores.SpaceStores;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.core.trust.SpaceSigner;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import io.nats.client.Subscription;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Standing authority connections renew their own JWT and fail closed when they cannot. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class AuthorityConnectionBrokerTest {
    private final SpaceAuth auth = SpaceAuth.create("alpha", Clock.systemUTC());
    private final SpaceSigner signer = auth.strip();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    private NatsBroker start(NatsBrokers brokers) {
        return brokers.start(b -> ServerConfig.render(auth.broker(), List.of(auth.account()), ServerConfigOptions.builder()
                .transport(Transport.plaintext()).storeDir(b.storeDir()).build()));
    }

    /** A clock that throws once {@code failAfter} reads have been made. */
    private static Clock failingAfter(int failAfter) {
        AtomicInteger reads = new AtomicInteger();
        return new Clock() {
            @Override
            public ZoneId getZone() {
                return ZoneId.of("UTC");
            }

            @Override
            public Clock withZone(ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                if (reads.incrementAndGet() > failAfter) {
                    throw new IllegalStateException("clock unavailable");
                }
                return Instant.now();
            }
        };
    }

    @Test
    void aStandingConnectionOutlivesItsFirstJwtByRenewing(NatsBrokers brokers) throws Exception {
        NatsBroker nats = start(brokers);
        CompletableFuture<String> failure = new CompletableFuture<>();
        try (AuthorityConnection writer = AuthorityConnection.open(List.of(nats.url()), signer, AuthorityRole.WRITER,
                Duration.ofSeconds(5), Clock.systemUTC(), scheduler, null, failure::complete)) {
            String first = writer.currentJwt();
            assertEquals(Instant.now().getEpochSecond() + 5, NatsJwt.decode(first).exp(), 1.0);
            writer.reconnected().get(20, TimeUnit.SECONDS); // the broker expired the first JWT; the renewed one got back in
            assertNotEquals(first, writer.currentJwt());
            assertTrue(NatsJwt.decode(writer.currentJwt()).exp() > NatsJwt.decode(first).exp());
            assertEquals(6, SpaceStores.setupAuthority(writer.connection(), "alpha").size(), "it still works");
            assertTrue(!failure.isDone());
        }
    }

    @Test
    @org.junit.jupiter.api.Timeout(90) // the loop ends on two turnovers of each connection; a broker that never drops them fails here
    void rowReadsAndMintsAcrossJwtExpiriesAreNeverRefused(NatsBrokers brokers) {
        NatsBroker nats = start(brokers);
        CompletableFuture<String> failure = new CompletableFuture<>();
        try (AuthorityConnection writer = AuthorityConnection.open(List.of(nats.url()), signer, AuthorityRole.WRITER,
                Duration.ofSeconds(5), Clock.systemUTC(), scheduler, null, failure::complete);
             AuthorityConnection reader = AuthorityConnection.open(List.of(nats.url()), signer, AuthorityRole.READER,
                Duration.ofSeconds(5), Clock.systemUTC(), scheduler, null, failure::complete)) {
            SpaceStores.setupAuthority(writer.connection(), "alpha");
            CredentialRows rows = new CredentialRows("alpha", writer.connection(), reader, Clock.systemUTC());
            String uid = "abcdefghijklmnopqrstuvwxyz";
            String id = rows.mint("u_ownerownerownerownerowners", "laptop", uid);
            ai.cotal.auth.ConnectAttempt attempt = new ai.cotal.auth.ConnectAttempt(
                    ai.cotal.core.id.Principal.of("u_ownerownerownerownerowners", "laptop"), List.of(),
                    new ai.cotal.core.id.LifecycleUid(uid), new ai.cotal.core.id.CredentialId(id));
            ai.cotal.core.internal.kv.RowStore store = new ai.cotal.core.internal.kv.RowStore(reader.connection(), "cotal_auth_alpha");
            long reads = 0;
            // the broker drops both connections at each 5 s expiry; they come back with renewed JWTs
            while (reader.online().reconnects() < 2 || writer.online().reconnects() < 2) {
                rows.requireLive(attempt); // a refusal fails the test
                assertTrue(store.last("cred." + id).isPresent(), "a row read across the turnover");
                assertTrue(store.last("cred." + rows.mint("u_ownerownerownerownerowners", "laptop", uid)).isPresent(), "a mint across it");
                reads++;
            }
            assertTrue(reads > 100, "reads ran through both turnovers: " + reads);
            assertTrue(!failure.isDone());
        }
    }

    @Test
    void aRetriedMintNeverWritesBackARevokedRowAndConfirmsOnlyItsOwnBytes(NatsBrokers brokers) throws Exception {
        NatsBroker nats = start(brokers);
        try (AuthorityConnection writer = AuthorityConnection.open(List.of(nats.url()), signer, AuthorityRole.WRITER,
                Duration.ofHours(1), Clock.systemUTC(), scheduler, null, why -> { })) {
            SpaceStores.setupAuthority(writer.connection(), "alpha");
            CredentialRows rows = new CredentialRows("alpha", writer.connection(), writer, Clock.systemUTC());
            io.nats.client.KeyValue kv = writer.connection().keyValue("cotal_auth_alpha");
            byte[] mine = "{\"v\":1}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(rows.createAgain("cred.fresh", mine), "nothing there: the retry writes the row");
            assertTrue(rows.createAgain("cred.fresh", mine), "the first try landed: the same bytes confirm it");
            assertTrue(!rows.createAgain("cred.fresh", "{\"v\":2}".getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                    "other bytes under the key are not ours");
            kv.delete("cred.fresh"); // revoked after the first try landed
            assertTrue(!rows.createAgain("cred.fresh", mine), "a revoked row is never written back");
            assertEquals(null, kv.get("cred.fresh"), "the tombstone is still the last word");
        }
    }

    @Test
    void aFailedRenewalClosesTheConnectionAtOnce(NatsBrokers brokers) throws Exception {
        NatsBroker nats = start(brokers);
        CompletableFuture<String> failure = new CompletableFuture<>();
        AuthorityConnection reader = AuthorityConnection.open(List.of(nats.url()), signer, AuthorityRole.READER,
                Duration.ofSeconds(5), failingAfter(2), scheduler, null, failure::complete);
        String why = failure.get(10, TimeUnit.SECONDS);
        assertTrue(why.contains("renewing its credential failed"), why);
        assertEquals(Connection.Status.CLOSED, reader.connection().getStatus());
    }

    @Test
    void aRenewalTheSignerCannotAnswerIsAskedAgainUntilTheJwtExpiresThenClosed(NatsBrokers brokers) throws Exception {
        NatsBroker nats = start(brokers);
        AtomicInteger asked = new AtomicInteger();
        ai.cotal.core.keys.AccountSigner down = new ai.cotal.core.keys.AccountSigner() { // a remote signer gone after the open
            @Override
            public String publicKey() {
                return signer.signing().publicKey();
            }

            @Override
            public byte[] sign(byte[] input) {
                if (asked.incrementAndGet() == 1) {
                    return signer.signing().sign(input);
                }
                throw new ai.cotal.core.CotalException(ai.cotal.core.ErrorCode.UNAVAILABLE, "signer: nothing answers");
            }
        };
        CompletableFuture<String> failure = new CompletableFuture<>();
        AuthorityConnection reader = AuthorityConnection.open(List.of(nats.url()),
                new SpaceSigner("alpha", signer.accountPublicKey(), down), AuthorityRole.READER, Duration.ofSeconds(5),
                Clock.systemUTC(), scheduler, null, failure::complete);
        long exp = NatsJwt.decode(reader.currentJwt()).exp();
        String why = failure.get(15, TimeUnit.SECONDS);
        assertTrue(why.contains("renewing its credential failed") && why.contains("nothing answers"), why);
        assertTrue(asked.get() >= 3, "asked again after the first refusal: " + asked.get() + " signatures asked");
        assertTrue(Instant.now().getEpochSecond() + 1 >= exp, "closed only when its JWT was about to expire");
        assertEquals(Connection.Status.CLOSED, reader.connection().getStatus());
    }

    @Test
    void planeCandidatesHaveNoExpiryAndReportTheirTuple(NatsBrokers brokers) {
        NatsBroker nats = start(brokers);
        try (AuthorityConnection scanner = AuthorityConnection.open(List.of(nats.url()), signer,
                AuthorityRole.LEDGER_SCANNER, Duration.ofSeconds(5), Clock.systemUTC(), scheduler, null, why -> { })) {
            assertEquals(null, NatsJwt.decode(scanner.currentJwt()).exp());
            assertEquals(nats.serverId(), scanner.tuple().serverId());
            assertTrue(scanner.tuple().cid() > 0);
        }
    }

    @Test
    void theAdminConnectionSendsOneReplyPerRequestAndNothingElse(NatsBrokers brokers) throws Exception {
        NatsBroker nats = start(brokers);
        Identity identity = Identity.create();
        String jwt = NatsJwt.encode(ClaimSet.of(identity.id(), "test-requester", UserClaim.of(null, null,
                auth.account().accountPublicKey(), null), Instant.now()), auth.account().signing());
        try (AuthorityConnection admin = AuthorityConnection.open(List.of(nats.url()), signer, AuthorityRole.ADMIN,
                Duration.ofMinutes(5), Clock.systemUTC(), scheduler, null, why -> { });
             Connection requester = NatsConnector.builder().server(nats.url()).creds(new Creds(jwt, identity))
                     .label("test-requester").build().connect()) {
            CompletableFuture<Void> answered = new CompletableFuture<>();
            admin.connection().createDispatcher(m -> {
                admin.connection().publish(m.getReplyTo(), "one".getBytes());
                admin.connection().publish(m.getReplyTo(), "two".getBytes()); // over the allowance
                admin.connection().publish("cotal.alpha.leak", "x".getBytes()); // no grant
                answered.complete(null);
            }).subscribe(AuthorityRole.retireManagedSubject("alpha", "*"));
            admin.connection().flush(Duration.ofSeconds(5));
            Subscription leak = requester.subscribe("cotal.alpha.leak");
            Subscription replies = requester.subscribe("_INBOX_test.reply");
            requester.flush(Duration.ofSeconds(5));
            requester.publish(AuthorityRole.retireManagedSubject("alpha", "mgr0000000000000000000000001"),
                    "_INBOX_test.reply", "{}".getBytes());
            answered.get(10, TimeUnit.SECONDS);
            admin.connection().flush(Duration.ofSeconds(5)); // the broker has judged all three publishes
            requester.flush(Duration.ofSeconds(5)); // and delivered whatever it let through before this pong
            assertEquals("one", new String(replies.nextMessage(Duration.ofSeconds(5)).getData()));
            assertEquals(0, replies.getPendingMessageCount(), "the broker allows one reply per request");
            assertEquals(0, leak.getPendingMessageCount(), "the broker refuses every other publish");
        }
    }
}
