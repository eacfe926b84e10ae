package ai.cotal.auth;

import ai.cotal.auth.internal.plane.AuthorityPlaneImpl;
import ai.cotal.auth.internal.callout.CalloutFixture;
import ai.cotal.auth.internal.callout.AuthCallout;
import ai.cotal.auth.internal.callout.CalloutAuthority;
import ai.cotal.auth.internal.callout.CalloutOptions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.Principal;
import ai.cotal.core.issued.Ceiling;
import ai.cotal.core.issued.IssuedAuthority;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.workspace.SecretKeys;
import io.nats.client.Connection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults (issue #11 part 2) in the plane's own paths: the broker killed after the plane claim
 * landed but before the open returned, and killed while the callout was answering a connect after
 * it had written the caller's accepted row. In both, nothing is granted, the component refuses
 * clearly, and after a restart the next plane finishes what was written.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class PlaneFaultsBrokerTest {
    @TempDir
    Path stateDir;

    /** {@code delegate}, except that the second read of {@code killOn} kills the broker first. */
    private static SecretStore killingOnRead(SecretStore delegate, String killOn, NatsBroker nats) {
        java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
        return new SecretStore() {
            @Override
            public Optional<byte[]> get(String key) {
                if (key.equals(killOn) && reads.incrementAndGet() == 2) {
                    nats.kill();
                }
                return delegate.get(key);
            }

            @Override
            public void put(String key, byte[] value) {
                delegate.put(key, value);
            }

            @Override
            public boolean create(String key, byte[] value) {
                return delegate.create(key, value);
            }

            @Override
            public void delete(String key) {
                delegate.delete(key);
            }
        };
    }

    @Test
    void aBrokerKilledAfterTheClaimLandedFailsTheOpenAndTheNextPlaneReclaims(NatsBrokers brokers) {
        PlaneFixture f = new PlaneFixture();
        NatsBroker nats = brokers.start(f::config);
        // the issuer key is read twice: its presence before any connection (SpaceProvisioning's
        // check), then the key itself after the claim is written and before the plane is returned
        SecretStore store = killingOnRead(f.store, SecretKeys.issuerKeysKey("alpha"), nats);
        CotalException refused = assertThrows(CotalException.class, () -> AuthAuthorityPlane.open(
                f.options(nats, stateDir).secretStore(store).build()));
        assertEquals(ErrorCode.UNAVAILABLE, refused.code(), refused.getMessage());
        assertTrue(refused.getMessage().contains("space \"alpha\" lost its broker while opening"), refused.getMessage());

        nats.restart();
        PlaneClaimRefusal unknown = assertThrows(PlaneClaimRefusal.class,
                () -> AuthAuthorityPlane.open(f.options(nats, stateDir).build()));
        assertEquals(PlaneClaimRefusal.Reason.UNKNOWN, unknown.reason(), "the claim the failed open wrote is kept");
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir)
                .livenessOracle(PlaneFixture.operatorSaysGone()).serviceEndpoints(true).build())) {
            assertEquals(2, plane.claim().generation(), "the next plane reclaimed the space");
            ActorRow row = plane.ledger().grantActor(Principal.of("u_abcdefghijklmnopqrstuvwxyz", "laptop"),
                    Grant.of(List.of("chat"), List.of(), List.of()));
            assertEquals(row, plane.ledger().find(Principal.of("u_abcdefghijklmnopqrstuvwxyz", "laptop")).orElseThrow(),
                    "the reclaimed plane writes and reads its ledger");
        }
    }

    @Test
    void aBrokerKilledMidCalloutAnswerLeavesAFencedPlaneThatAdmitsNobodyAndTheNextPlaneConfirmsTheRow(NatsBrokers brokers)
            throws Exception {
        CalloutFixture f = new CalloutFixture();
        NatsBroker nats = brokers.start(f::config);
        String nonce = CalloutFixture.nonce("laptop", "caller-fault01");
        String bearer;
        AuthAuthorityPlane first = f.open(nats, stateDir);
        TestManager.forOwner(first, nats, CalloutFixture.OWNER).close(); // a candidate manager (SPEC §14.4)
        ActorRow row = first.ledger().grantActor(Principal.of(CalloutFixture.OWNER, "laptop"),
                Grant.of(List.of("chat"), List.of(), List.of()));
        CredentialId credential = first.credentials().mint(Principal.of(CalloutFixture.OWNER, "laptop"), row.lifecycleUid()).id();
        bearer = first.bearers().issue(BearerRequest.managerCaller(Principal.of(CalloutFixture.OWNER, "laptop"), List.of("chat"),
                row.lifecycleUid(), credential, Duration.ofMinutes(5)));
        AtomicBoolean killed = new AtomicBoolean();
        CalloutAuthority killingAfterTheRow = new CalloutAuthority() {
            @Override
            public String space() {
                return first.space();
            }

            @Override
            public BearerClaims verifyBearer(String token) {
                return first.bearers().verify(token);
            }

            @Override
            public ActorRow authorizeConnect(ConnectAttempt attempt) {
                return first.credentials().authorize(attempt);
            }

            @Override
            public String authorizeManagerCaller(BearerClaims claims) {
                return ((AuthorityPlaneImpl) first).calloutAuthority().authorizeManagerCaller(claims);
            }

            @Override
            public Ceiling issueUserCaller(BearerClaims claims, String connId, Ceiling ceiling) {
                Ceiling granted = first.issuedCallers().issue(claims, connId, ceiling); // the accepted row landed
                if (killed.compareAndSet(false, true)) {
                    nats.kill(); // before the answer is sealed and published
                }
                return granted;
            }
        };
        try (AuthCallout callout = AuthCallout.start(CalloutOptions.builder().server(nats.url()).callout(f.callout)
                .plane(killingAfterTheRow).signer(new ai.cotal.core.trust.SpaceAuth(f.plane.broker, f.plane.space).strip())
                .build())) {
            java.util.concurrent.CompletableFuture<Void> back = new java.util.concurrent.CompletableFuture<>();
            callout.connection().addConnectionListener((conn, event) -> {
                if (event == io.nats.client.ConnectionListener.Events.RECONNECTED) {
                    back.complete(null);
                }
            });
            f.refused(nats, bearer, nonce); // the broker died under the connect
            assertTrue(killed.get(), "the kill happened inside the callout's answer");
            first.fenced().get(10, TimeUnit.SECONDS);
            nats.restart();
            back.get(30, TimeUnit.SECONDS); // the responder is back (its subscription may still be on the way)
            boolean answeredByThePlane = false;
            for (int attempt = 0; attempt < 5 && !answeredByThePlane; attempt++) {
                long mark = nats.log().mark();
                f.refused(nats, bearer, nonce); // the broker refuses every attempt: nobody is admitted
                answeredByThePlane = nats.log().await(mark, line -> line.contains("is momentarily unavailable"),
                        Duration.ofSeconds(2)).isPresent();
            }
            assertTrue(answeredByThePlane, "a refusal came as the callout's signed answer from the fenced plane");
            CotalException fenced = assertThrows(CotalException.class, () -> first.credentials().authorize(
                    first.bearers().verify(bearer).attempt()));
            assertEquals(ErrorCode.UNAVAILABLE, fenced.code(), "the fenced plane refuses every connect");
        }
        first.close();

        try (AuthAuthorityPlane second = AuthAuthorityPlane.open(f.plane.options(nats, stateDir)
                .livenessOracle(PlaneFixture.operatorSaysGone()).build()); AuthCallout callout = f.responder(nats, second);
             Connection admin = f.plane.admin(nats)) {
            String token = IssuedAuthority.acceptedToken(nonce);
            String generation = second.issuedCallers().resolve(token).ref().generation(); // written before the kill
            try (CalloutFixture.Client client = f.connect(nats, bearer, nonce)) {
                assertEquals(Connection.Status.CONNECTED, client.connection().getStatus());
            }
            assertEquals(generation, second.issuedCallers().resolve(token).ref().generation(),
                    "the retried connect confirmed the generation written before the kill");
            assertEquals(1, admin.jetStreamManagement().getStreamInfo("KV_cotal_accepted_alpha").getStreamState()
                    .getMsgCount(), "one accepted row: nothing was written twice");
        }
    }
}
