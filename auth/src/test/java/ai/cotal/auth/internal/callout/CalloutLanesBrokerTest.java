package ai.cotal.auth.internal.callout;

import ai.cotal.auth.internal.plane.AuthorityPlaneImpl;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.BearerClaims;
import ai.cotal.auth.ConnectAttempt;
import ai.cotal.auth.InboxNonce;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.id.Principal;
import ai.cotal.core.issued.Ceiling;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The responder's lanes (SPEC §13.16) on the real broker: with its share of workers for requests
 * without a bearer held by such requests, and more of them waiting ahead, a connect that carries a
 * bearer is still answered (admitted); a bearer's answer travels on a connection of its own, so the
 * broker never reads it behind the other lane's refusals.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class CalloutLanesBrokerTest {
    private static final String NOT_A_BEARER = "not-a-bearer";
    private static final int FLOOD = 12; // more than every worker the responder has, and than its share for them

    private final CalloutFixture f = new CalloutFixture();

    @TempDir
    Path stateDir;

    /** The plane's authority, except that verifying {@link #NOT_A_BEARER} waits until released. */
    private record Holding(CalloutAuthority plane, CountDownLatch entered, CountDownLatch release)
            implements CalloutAuthority {
        @Override
        public String space() {
            return plane.space();
        }

        @Override
        public BearerClaims verifyBearer(String token) {
            if (NOT_A_BEARER.equals(token)) {
                entered.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return plane.verifyBearer(token);
        }

        @Override
        public ActorRow authorizeConnect(ConnectAttempt attempt) {
            return plane.authorizeConnect(attempt);
        }

        @Override
        public Ceiling issueUserCaller(BearerClaims bearer, String connId, Ceiling ceiling) {
            return plane.issueUserCaller(bearer, connId, ceiling);
        }

        @Override
        public EndpointAccess endpointAccess(BearerClaims bearer, ActorRow row) {
            return plane.endpointAccess(bearer, row);
        }

        @Override
        public void admitted(LiveConnection connection, EndpointAccess access) {
            plane.admitted(connection, access);
        }

        @Override
        public void admittedAt(LiveConnection connection, ActorRow row) {
            plane.admittedAt(connection, row);
        }
    }

    @Test
    void aBearerIsAnsweredWhileRequestsWithoutOneHoldTheirShareAndWaitAheadOfIt(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch published = new CountDownLatch(FLOOD);
        ExecutorService flood = Executors.newFixedThreadPool(FLOOD);
        try (AuthAuthorityPlane plane = f.open(nats, stateDir);
             AuthCallout callout = AuthCallout.start(CalloutOptions.builder().server(nats.url()).callout(f.callout)
                     .plane(new Holding(((AuthorityPlaneImpl) plane).calloutAuthority(), entered, release))
                     .signer(new SpaceAuth(f.plane.broker, f.plane.space).strip()).build());
             Connection spy = Nats.connect(new Options.Builder().server(nats.url())
                     .authHandler(f.callout.calloutCreds().authHandler()).maxControlLine(ServerConfig.MAX_CONTROL_LINE)
                     .build())) {
            // a plain subscriber beside the queue group sees every request the broker publishes, in order
            spy.createDispatcher(m -> published.countDown()).subscribe(CalloutAuth.REQUEST_SUBJECT);
            spy.flush(Duration.ofSeconds(5));
            String bearer = f.bearer(plane, "laptop", List.of("general"), List.of("general"), Duration.ofMinutes(5));
            List<CompletableFuture<Exception>> refused = new java.util.ArrayList<>();
            for (int i = 0; i < FLOOD; i++) {
                String nonce = CalloutFixture.nonce("laptop", "flood-" + i + "-nonce");
                refused.add(CompletableFuture.supplyAsync(() -> f.refused(nats, NOT_A_BEARER, nonce), flood));
            }
            assertTrue(published.await(30, TimeUnit.SECONDS), "the broker asked about every connect without a bearer");
            assertTrue(entered.await(30, TimeUnit.SECONDS), "a worker holds one of them");

            // published after all of them: it arrives behind them at the responder
            try (CalloutFixture.Client client = f.connect(nats, bearer, InboxNonce.forPrincipal(Principal.of(CalloutFixture.OWNER, "laptop")))) {
                assertEquals(Connection.Status.CONNECTED, client.connection().getStatus());
            } finally {
                release.countDown();
            }
            for (CompletableFuture<Exception> each : refused) {
                assertTrue(each.get(30, TimeUnit.SECONDS).getMessage().contains("Authorization Violation"));
            }
        } finally {
            release.countDown();
            flood.shutdownNow();
        }
    }

    @Test
    void aBearersAnswerTravelsOnTheAnswersConnectionOnly(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = f.open(nats, stateDir);
             AuthCallout callout = AuthCallout.start(CalloutOptions.builder().server(nats.url()).callout(f.callout)
                     .plane(((AuthorityPlaneImpl) plane).calloutAuthority()).signer(new SpaceAuth(f.plane.broker, f.plane.space).strip())
                     .build())) {
            String bearer = f.bearer(plane, "laptop", List.of("general"), List.of("general"), Duration.ofMinutes(5));
            try (CalloutFixture.Client client = f.connect(nats, bearer, InboxNonce.forPrincipal(Principal.of(CalloutFixture.OWNER, "laptop")))) {
                assertEquals(Connection.Status.CONNECTED, client.connection().getStatus());
            }
            assertTrue(callout.answers() != callout.connection(), "two connections");
            callout.answers().close();
            // the requests still arrive on the other connection, but the admission has no way out
            Exception unanswered = f.refused(nats, bearer, InboxNonce.forPrincipal(Principal.of(CalloutFixture.OWNER, "laptop")));
            assertTrue(unanswered.getMessage().contains("Authorization Violation"), unanswered.getMessage());
            assertEquals(Connection.Status.CONNECTED, callout.connection().getStatus());
        }
    }
}
