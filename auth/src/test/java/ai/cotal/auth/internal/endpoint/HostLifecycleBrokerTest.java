package ai.cotal.auth.internal.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.PlaneFixture;
import ai.cotal.auth.ServiceEndpoints;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.Principal;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The host's startup setting, its trip without a plane fence, and close waiting for calls in flight. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class HostLifecycleBrokerTest {
    @TempDir
    Path stateDir;

    private static String planeRow(PlaneFixture f, NatsBroker nats) throws Exception {
        try (io.nats.client.Connection admin = f.admin(nats)) {
            return new String(admin.keyValue("cotal_auth_alpha").get("plane").getValue(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void aRestoreOrMissingStartupRefusesTheOpenAndReleasesTheClaim(NatsBrokers brokers) throws Exception {
        PlaneFixture f = new PlaneFixture();
        NatsBroker nats = brokers.start(f::config);
        for (ServiceEndpoints setting : new ServiceEndpoints[] {new ServiceEndpoints(new ServiceEndpoints.Startup("restore")),
                new ServiceEndpoints(null)}) {
            CotalException refused = assertThrows(CotalException.class, () -> AuthAuthorityPlane.open(
                    f.options(nats, stateDir).serviceEndpoints(setting).build()));
            assertEquals(ErrorCode.FAILED_PRECONDITION, refused.code());
            assertTrue(refused.getMessage().contains("startup"), refused.getMessage());
            assertTrue(planeRow(f, nats).contains("\"state\":\"released\""), "the unwind released the claim");
        }
        try (io.nats.client.Connection admin = f.admin(nats)) {
            assertFalse(ai.cotal.auth.internal.endpoint.ServiceEndpointAdmissionKey.isOpen(admin, "alpha"),
                    "a refused open leaves admission closed");
            try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir)
                    .serviceEndpoints(ServiceEndpoints.normal()).build())) {
                assertTrue(plane.serviceEndpoints().isPresent(), "a normal startup opens, taking the released claim");
            }
            assertTrue(ai.cotal.auth.internal.endpoint.ServiceEndpointAdmissionKey.isOpen(admin, "alpha"),
                    "the first open with service endpoints opened admission");
        }
    }

    @Test
    void aLostBrokerTripsTheHostAndNothingIsWritten(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            String iid = EndpointFixture.iid();
            x.approved(x.owner, "weather", iid);
            long before = x.lastSequence();
            x.admin.close();
            x.nats.kill();
            x.plane.fenced().get(10, TimeUnit.SECONDS); // both scanners lost: the plane's fatal path
            CotalException read = assertThrows(CotalException.class, () -> x.call(x.owner,
                    new HostRequest.InstanceRead("weather", iid)));
            assertEquals(ErrorCode.UNAVAILABLE, read.code());
            CotalException write = assertThrows(CotalException.class, () -> x.call(x.owner,
                    new HostRequest.Revoke(EndpointFixture.rid(), "weather", iid)));
            assertEquals(ErrorCode.UNAVAILABLE, write.code(), "a fenced plane's host answers no write");
            x.nats.restart();
            try (io.nats.client.Connection admin = x.f.admin(x.nats)) {
                assertEquals(before, admin.jetStreamManagement().getStreamInfo("KV_" + x.bucket).getStreamState()
                        .getLastSequence(), "nothing was written while the broker was gone");
            }
            assertEquals(ErrorCode.UNAVAILABLE, assertThrows(CotalException.class, () -> x.call(x.owner,
                    new HostRequest.Revoke(EndpointFixture.rid(), "weather", iid))).code(),
                    "the host stays refusing until the plane is opened again");
        }
    }

    /** The space's signer, refusing the discovery JWT's second signature (its first renewal; the first is its open). */
    private static ai.cotal.core.trust.SpaceSigner failingDiscoveryRenewal(ai.cotal.core.trust.SpaceSigner signer) {
        java.util.concurrent.atomic.AtomicInteger signatures = new java.util.concurrent.atomic.AtomicInteger();
        return RefusingSigner.refusing(signer, ai.cotal.auth.internal.connect.AuthorityRole.DISCOVERY,
                () -> signatures.incrementAndGet() == 2);
    }

    @Test
    void aDiscoveryRenewalFailureLeavesTheHostUnavailableUntilThePlaneOpensAgain(NatsBrokers brokers) throws Exception {
        PlaneFixture f = new PlaneFixture();
        NatsBroker nats = brokers.start(f::config);
        ai.cotal.auth.Granter owner = new ai.cotal.auth.Granter.Owner(EndpointFixture.OWNER, "laptop");
        String iid = EndpointFixture.iid();
        long before;
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).signer(failingDiscoveryRenewal(new ai.cotal.core.trust.SpaceAuth(
                f.broker, f.space).strip()))
                .standingTtl(java.time.Duration.ofSeconds(5)).serviceEndpoints(true).build())) {
            plane.ledger().grantActor(Principal.of(EndpointFixture.OWNER, "laptop"), ai.cotal.auth.Grant.of(java.util.List.of(),
                    java.util.List.of(), java.util.List.of()));
            ServiceEndpointEngine engine = ((ai.cotal.auth.internal.plane.AuthorityPlaneImpl) plane).serviceEndpointEngine();
            ai.cotal.auth.ServiceEndpointHost host = plane.serviceEndpoints().orElseThrow();
            String why = engine.discoveryLost().get(20, TimeUnit.SECONDS);
            assertTrue(why.contains("ep-discovery"), why);
            assertEquals(io.nats.client.Connection.Status.CLOSED, engine.discovery().connection().getStatus(),
                    "the discovery connection is closed for good");
            before = lastSequence(f, nats);
            for (HostRequest write : java.util.List.<HostRequest>of(new HostRequest.Register(EndpointFixture.rid(),
                    "weather", iid, EndpointFixture.CONTRACT, java.util.List.of("ask")), new HostRequest.Decide(
                    EndpointFixture.rid(), "weather", iid, HostRequest.Decision.APPROVE), new HostRequest.Revoke(
                    EndpointFixture.rid(), "weather", iid), new HostRequest.NameRead("forecast"))) {
                CotalException refused = assertThrows(CotalException.class, () -> {
                    if (write instanceof HostRequest.Register r) {
                        host.admit(owner, r);
                    } else {
                        host.serve(owner, write);
                    }
                }, write.kind());
                assertEquals(ErrorCode.UNAVAILABLE, refused.code(), write.kind() + ": " + refused.getMessage());
                assertTrue(refused.getMessage().contains("until the plane is opened again"), refused.getMessage());
            }
            assertEquals(before, lastSequence(f, nats), "nothing was written");
            assertFalse(plane.fenced().isDone(), "the plane itself keeps serving");
            plane.bearers().jwks();
        }
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).serviceEndpoints(true).build())) {
            HostResult pending = plane.serviceEndpoints().orElseThrow().admit(owner, new HostRequest.Register(
                    EndpointFixture.rid(), "weather", iid, EndpointFixture.CONTRACT, java.util.List.of("ask")));
            assertEquals(HostResult.Status.PENDING, pending.status(), "the plane opened again serves the host");
        }
    }

    private static long lastSequence(PlaneFixture f, NatsBroker nats) throws Exception {
        try (io.nats.client.Connection admin = f.admin(nats)) {
            return admin.jetStreamManagement().getStreamInfo("KV_cotal_auth_alpha").getStreamState().getLastSequence();
        }
    }

    @Test
    void aTrippedHostRefusesWithoutFencingThePlane(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            x.engine.trip("cotal:auth-scan:alpha: lost its broker while the plane closed"); // a plane fatal path
            assertEquals(ErrorCode.UNAVAILABLE, assertThrows(CotalException.class, () -> x.call(x.owner,
                    x.approve("weather", EndpointFixture.iid()))).code(), "a write is refused at entry, as a read");
            CotalException read = assertThrows(CotalException.class, () -> x.call(x.owner,
                    new HostRequest.NameRead("forecast")));
            assertEquals(ErrorCode.UNAVAILABLE, read.code());
            assertFalse(x.plane.fenced().isDone(), "the plane itself keeps serving");
            x.plane.bearers().jwks();
        }
    }

    @Test
    void anEffectConnectionThatWillNotCloseKeepsTheClaimUntilARetriedCloseSucceeds(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            boolean[] failClose = {true};
            x.engine.hooks(new Hooks() {
                @Override
                public void beforeEffectClose(EffectConnection effect) {
                    if (failClose[0]) {
                        throw new IllegalStateException("injected: the close did not complete");
                    }
                }
            });
            assertEquals(HostResult.Status.PENDING, x.call(x.owner, x.register("weather", EndpointFixture.iid())).status());
            CotalException kept = assertThrows(CotalException.class, x.plane::close);
            assertEquals(ErrorCode.UNAVAILABLE, kept.code());
            assertTrue(kept.getMessage().contains("keeps its claim"), kept.getMessage());
            assertTrue(planeRow(x.f, x.nats).contains("\"state\":\"held\""), "the claim stays held");
            failClose[0] = false;
            x.plane.close();
            assertTrue(planeRow(x.f, x.nats).contains("\"state\":\"released\""), "the retried close released it");
        }
    }

    @Test
    void closeWaitsForACallInFlightAndRefusesNewOnes(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            x.engine.hooks(new Hooks() {
                @Override
                public void afterDiscovery(HostRequest request, Set<String> scope) {
                    entered.countDown();
                    try {
                        release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            // Threads of its own: the blocked call and close must run side by side, which the default async
            // executor does not promise (on JDK 25 it is the common pool: one worker on 2 cores).
            ExecutorService threads = Executors.newFixedThreadPool(2);
            try {
                CompletableFuture<HostResult> call = CompletableFuture.supplyAsync(() -> x.call(x.owner,
                        x.register("weather", EndpointFixture.iid())), threads);
                assertTrue(entered.await(10, TimeUnit.SECONDS));
                CompletableFuture<Void> closing = CompletableFuture.runAsync(x.plane::close, threads);
                CotalException refused = null;
                long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (refused == null) {
                    assertTrue(System.nanoTime() - giveUp < 0, "close never started refusing new calls");
                    try {
                        x.call(x.owner, new HostRequest.NameRead("forecast"));
                        Thread.onSpinWait();
                    } catch (CotalException e) {
                        refused = e;
                    }
                }
                assertEquals(ErrorCode.UNAVAILABLE, refused.code(), "new calls are refused from the moment close is called");
                assertFalse(closing.isDone(), "close waits for the call that already entered");
                release.countDown();
                assertEquals(HostResult.Status.PENDING, call.get(20, TimeUnit.SECONDS).status(), "the call in flight finished");
                closing.get(20, TimeUnit.SECONDS);
                assertTrue(planeRow(x.f, x.nats).contains("\"state\":\"released\""));
            } finally {
                threads.shutdownNow();
            }
        }
    }
}
