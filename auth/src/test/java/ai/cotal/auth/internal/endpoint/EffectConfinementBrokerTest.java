package ai.cotal.auth.internal.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.internal.connect.AuthorityRole;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.jwt.Permission;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.keys.NKeyPair;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.servicehost.HostJson;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.servicehost.HostResult.Status;
import ai.cotal.servicehost.Views;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.ErrorListener;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The effect connection's confinement, expiry and fencing, and the create-only guard (SPEC §13.1). */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class EffectConfinementBrokerTest {
    @TempDir
    Path stateDir;

    /** A raw connection presenting {@code jwt}, recording the broker's permission errors. */
    private static Connection connect(EndpointFixture x, String jwt, NKeyPair identity, BlockingQueue<String> errors) {
        Identity id = Identity.fromSeed(identity.seed());
        // the probe's credential is the one under test; the error listener shows the broker's refusals
        return NatsConnector.builder().server(x.nats.url()).creds(new Creds(jwt, id)).label("confinement-probe")
                .errorListener(new ErrorListener() {
                    @Override
                    public void errorOccurred(Connection conn, String error) {
                        errors.add(error);
                    }
                }).build().connect();
    }

    /** Waits for the broker's permission error naming {@code subject}; returns the errors seen. */
    private static List<String> awaitError(BlockingQueue<String> errors, String subject) throws InterruptedException {
        List<String> seen = new java.util.ArrayList<>();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (true) {
            String error = errors.poll(Math.max(1, until - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (error == null) {
                throw new AssertionError("the broker did not refuse " + subject + ": " + seen);
            }
            seen.add(error);
            if (error.contains("Permissions Violation") && error.contains(subject)) {
                return seen;
            }
        }
    }

    @Test
    void theEffectCredentialPublishesOnlyItsKeysAndDiscoveryNone(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            NKeyPair identity = NKeyPair.create(KeyType.USER);
            EffectConnection.Dial dial = new EffectConnection.Dial(List.of(x.nats.url()),
                    new SpaceAuth(x.f.broker, x.f.space).strip(), null, x.bucket, identity);
            String jwt = EffectConnection.credential(dial, Set.of("svc.name.mine"), Instant.now(), x.soon());
            BlockingQueue<String> errors = new LinkedBlockingQueue<>();
            try (Connection probe = connect(x, jwt, identity, errors)) {
                probe.publish("$KV." + x.bucket + ".svc.name.mine", "{\"v\":1}".getBytes(StandardCharsets.UTF_8));
                probe.publish("$KV." + x.bucket + ".svc.name.sibling", "{}".getBytes(StandardCharsets.UTF_8));
                probe.flush(Duration.ofSeconds(5));
                List<String> seen = awaitError(errors, "svc.name.sibling");
                assertFalse(seen.stream().anyMatch(e -> e.contains("svc.name.mine")), "its own key is granted");
            }
            assertNull(x.get("svc.name.sibling"), "the sibling key was never written");
            assertEquals("{\"v\":1}", x.get("svc.name.mine"));

            Permission discovery = AuthorityRole.DISCOVERY.publish("alpha");
            assertTrue(discovery.allow().stream().noneMatch(s -> s.startsWith("$KV.")), "discovery holds no $KV grant");
            NKeyPair reader = NKeyPair.create(KeyType.USER);
            String readerJwt = NatsJwt.encode(ClaimSet.of(reader.publicKey(), "probe", UserClaim.of(discovery,
                    Permission.allow(List.of("_INBOX_" + reader.publicKey() + ".>")), x.f.space.accountPublicKey(), null),
                    Instant.now()), x.f.space.signing());
            BlockingQueue<String> readerErrors = new LinkedBlockingQueue<>();
            try (Connection probe = connect(x, readerJwt, reader, readerErrors)) {
                probe.publish("$KV." + x.bucket + ".svc.name.any", "{}".getBytes(StandardCharsets.UTF_8));
                probe.flush(Duration.ofSeconds(5));
                awaitError(readerErrors, "svc.name.any");
            }
        }
    }

    @Test
    void anEffectConnectionSizesItsControlLineToItsJwtAndWritesEveryKeyOfAWideScope(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            NKeyPair identity = NKeyPair.create(KeyType.USER);
            EffectConnection.Dial dial = new EffectConnection.Dial(List.of(x.nats.url()),
                    new SpaceAuth(x.f.broker, x.f.space).strip(), null, x.bucket, identity);
            String small = EffectConnection.credential(dial, Set.of("svc.name.mine"), Instant.now(), x.soon());
            assertEquals(4096, EffectConnection.controlLine(small), "a one-key JWT: jnats' default, not 64 KiB");
            // widest plausible scope: keys as long as the grammars allow (a 253-character endpoint token)
            Set<String> wide = new java.util.LinkedHashSet<>();
            for (int i = 0; i < 12; i++) {
                wide.add("svc.grantee.u_abcdefghijklmnopqrstuvwxyz.actor" + i + "." + "e".repeat(253) + ".inst" + i);
            }
            String big = EffectConnection.credential(dial, wide, Instant.now(), x.soon());
            assertTrue(big.length() > 4096, "the wide JWT is longer than jnats' default limit: " + big.length());
            assertEquals(big.length() + 1024, EffectConnection.controlLine(big));
            try (EffectConnection effect = EffectConnection.open(dial, null, wide, Instant.now(), x.soon())) {
                assertEquals(big.length() + 1024, effect.connection().getOptions().getMaxControlLine());
                for (String key : wide) {
                    assertTrue(effect.publish(key, "{}".getBytes(java.nio.charset.StandardCharsets.UTF_8), 0).isPresent(),
                            "the broker took the write to " + key);
                }
            }
        }
    }

    @Test
    void theEffectJwtExpiresAtTheDeadlineRoundedUpAndTheBrokerClosesItThen(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            Instant deadline = Instant.now().plusMillis(1300);
            long expected = (deadline.toEpochMilli() + 999) / 1000;
            NKeyPair identity = NKeyPair.create(KeyType.USER);
            EffectConnection.Dial dial = new EffectConnection.Dial(List.of(x.nats.url()),
                    new SpaceAuth(x.f.broker, x.f.space).strip(), null, x.bucket, identity);
            String jwt = EffectConnection.credential(dial, Set.of("svc.name.mine"), Instant.now(), deadline);
            assertEquals(expected, NatsJwt.decode(jwt, UserClaim.class).exp(), "exp = ceil(deadline_ms / 1000)");

            try (EffectConnection effect = EffectConnection.open(dial, null, Set.of("svc.name.mine"), Instant.now(),
                    deadline)) {
                assertEquals(expected, effect.exp());
                List<ConnectionListener.Events> events = new CopyOnWriteArrayList<>();
                effect.connection().addConnectionListener((conn, type) -> events.add(type));
                effect.gone().get(10, TimeUnit.SECONDS);
                long closedAt = System.currentTimeMillis();
                assertTrue(closedAt - deadline.toEpochMilli() < 2000, "closed " + (closedAt - deadline.toEpochMilli())
                        + " ms after the deadline");
                assertTrue(closedAt >= expected * 1000 - 100, "not closed before exp");
                CompletableFuture<Void> closed = new CompletableFuture<>();
                effect.connection().addConnectionListener((conn, type) -> {
                    if (type == ConnectionListener.Events.CLOSED) {
                        closed.complete(null);
                    }
                });
                if (effect.connection().getStatus() != Connection.Status.CLOSED) {
                    closed.get(5, TimeUnit.SECONDS);
                }
                assertEquals(Connection.Status.CLOSED, effect.connection().getStatus());
                assertTrue(effect.lost());
            }
        }
    }

    /** Counts the signatures made with the data account's key: each is one JWT minted. */
    private static final class Counting implements ai.cotal.core.keys.AccountSigner {
        final ai.cotal.core.keys.AccountSigner delegate;
        final java.util.concurrent.atomic.AtomicInteger signatures = new java.util.concurrent.atomic.AtomicInteger();

        Counting(ai.cotal.core.keys.AccountSigner delegate) {
            this.delegate = delegate;
        }

        @Override
        public String publicKey() {
            return delegate.publicKey();
        }

        @Override
        public byte[] sign(byte[] input) {
            signatures.incrementAndGet();
            return delegate.sign(input);
        }
    }

    /**
     * Lost while its JWT is still valid (kicked by the broker 10 s before its deadline), the effect
     * connection neither reconnects (a reconnect would succeed now) nor mints a new JWT: one
     * signature for its whole life, and the connection is closed for good.
     */
    @Test
    void aKickedEffectConnectionNeverReconnectsAndNeverRenewsItsJwt(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            ai.cotal.core.trust.SpaceSigner space = new SpaceAuth(x.f.broker, x.f.space).strip();
            Counting signing = new Counting(space.signing());
            NKeyPair identity = NKeyPair.create(KeyType.USER);
            EffectConnection.Dial dial = new EffectConnection.Dial(List.of(x.nats.url()), new ai.cotal.core.trust.SpaceSigner(
                    space.space(), space.accountPublicKey(), signing), null, x.bucket, identity);
            Instant deadline = Instant.now().plusSeconds(20);
            try (EffectConnection effect = EffectConnection.open(dial, null, Set.of("svc.name.mine"), Instant.now(),
                    deadline)) {
                assertEquals(1, signing.signatures.get(), "one JWT, signed once, at open");
                List<ConnectionListener.Events> events = new CopyOnWriteArrayList<>();
                CompletableFuture<Void> closed = new CompletableFuture<>();
                effect.connection().addConnectionListener((conn, type) -> {
                    events.add(type);
                    if (type == ConnectionListener.Events.CLOSED) {
                        closed.complete(null);
                    }
                });
                x.kick(effect.connection().getServerInfo().getClientId());
                effect.gone().get(5, TimeUnit.SECONDS);
                if (effect.connection().getStatus() != Connection.Status.CLOSED) {
                    closed.get(5, TimeUnit.SECONDS); // a reconnecting client would be RECONNECTING, then CONNECTED again
                }
                assertEquals(Connection.Status.CLOSED, effect.connection().getStatus(), "closed for good: " + events);
                assertFalse(events.contains(ConnectionListener.Events.RECONNECTED), "never reconnects: " + events);
                assertTrue(Instant.now().isBefore(deadline), "lost while its JWT was still valid");
                assertTrue(effect.lost());
                assertEquals(1, signing.signatures.get(), "never renewed: no second JWT was minted");
            }
        }
    }

    @Test
    void aKeyCreatedConcurrentlyHoldsAsScopeMismatchAndTheReplayScopesIt(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            HostRequest.Register register = x.register("weather", EndpointFixture.iid());
            String theirs = Rows.newId();
            long[] afterTheirs = new long[1];
            x.engine.hooks(new Hooks() {
                @Override
                public void afterDiscovery(HostRequest request, Set<String> scope) {
                    String digest = Invocation.sha256(HostJson.writeRequest(register));
                    afterTheirs[0] = x.put(Rows.req(register.requestId()), "{\"v\":1,\"requestId\":\""
                            + register.requestId() + "\",\"kind\":\"register\",\"requestDigest\":\"" + digest
                            + "\",\"operationId\":\"" + theirs + "\",\"granter\":\"owner:" + EndpointFixture.OWNER
                            + "\"}");
                }
            });
            HostResult held = x.call(x.owner, register);
            assertEquals(Status.HELD, held.status());
            assertEquals("scope-mismatch", held.reason());
            assertEquals(theirs, held.operationId(), "the binding exists: the result names its operation");
            assertEquals(afterTheirs[0], x.lastSequence(), "the engine wrote nothing");

            x.engine.hooks(Hooks.NONE);
            HostResult replay = x.call(x.owner, register);
            assertEquals(Status.PENDING, replay.status(), String.valueOf(replay.reason()));
            assertEquals(theirs, replay.operationId());
        }
    }

    @Test
    void aKickedEffectConnectionFencesTheInvocationAndAReplayCompletes(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            HostRequest.Register register = x.register("weather", EndpointFixture.iid());
            long[] atKick = new long[1];
            x.engine.hooks(new Hooks() {
                @Override
                public void beforeStep(String key, Plan.Tag tag, EffectConnection effect) {
                    if (tag == Plan.Tag.INTEND) {
                        x.kick(effect.connection().getServerInfo().getClientId());
                        try {
                            effect.gone().get(5, TimeUnit.SECONDS);
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                        atKick[0] = x.lastSequence();
                    }
                }
            });
            HostResult held = x.call(x.owner, register);
            assertEquals(Status.HELD, held.status());
            assertEquals("fenced", held.reason());
            assertTrue(held.operationId() != null, "bind and admit landed: the operation is named");
            assertEquals(atKick[0], x.lastSequence(), "no write after the connection was lost");
            assertNull(x.get(Rows.op(held.operationId())), "the step after the kick never ran");

            x.engine.hooks(Hooks.NONE);
            HostResult replay = x.call(x.owner, register);
            assertEquals(Status.PENDING, replay.status(), String.valueOf(replay.reason()));
            assertEquals(held.operationId(), replay.operationId());
        }
    }

    @Test
    void aGrantCreatedBeforeTheConnectionWasLostSettlesGrantedOnReplay(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            String iid = EndpointFixture.iid();
            x.approved(x.owner, "weather", iid);
            HostRequest.CallerGrant grant = new HostRequest.CallerGrant(EndpointFixture.rid(), "weather", iid,
                    new HostRequest.Grantee(EndpointFixture.OTHER, "laptop"), List.of("ask"));
            x.engine.hooks(new Hooks() {
                @Override
                public void beforeStep(String key, Plan.Tag tag, EffectConnection effect) {
                    if (tag == Plan.Tag.SETTLE) {
                        x.kick(effect.connection().getServerInfo().getClientId());
                        effect.gone().join();
                    }
                }
            });
            HostResult held = x.call(x.owner, grant);
            x.engine.hooks(Hooks.NONE);
            assertEquals(Status.HELD, held.status());
            assertEquals("fenced", held.reason());
            x.call(x.owner, new HostRequest.Revoke(EndpointFixture.rid(), "weather", iid)); // a parent goes away
            HostResult replay = x.call(x.owner, grant);
            assertEquals(Status.GRANTED, replay.status(), "the grant exists: its operation settles granted");
            assertEquals(held.operationId(), replay.operationId());
            assertEquals(Views.GrantState.ACTIVE, replay.grant().state());
        }
    }

    @Test
    void aNameDeletedBehindTheEnginesBackStaysClosed(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            HostResult bound = x.call(x.operator, new HostRequest.NameBind(EndpointFixture.rid(), "forecast", "weather",
                    EndpointFixture.OWNER, "dns:forecast.example", 0));
            assertEquals(Status.COMPLETED, bound.status());
            x.delete(Rows.name("forecast"));
            long before = x.lastSequence();
            HostResult again = x.call(x.operator, new HostRequest.NameBind(EndpointFixture.rid(), "forecast", "weather",
                    EndpointFixture.OWNER, "dns:forecast.example", 0));
            assertEquals(Status.DENIED, again.status());
            assertTrue(again.reason().contains("deleted"), again.reason());
            assertEquals(before, x.lastSequence(), "nothing written over the tombstone");
            assertEquals(Status.DENIED, x.call(x.owner, new HostRequest.NameRead("forecast")).status());
        }
    }
}
