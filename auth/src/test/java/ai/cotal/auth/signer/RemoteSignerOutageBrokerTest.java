package ai.cotal.auth.signer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.ActorRow;
import ai.cotal.auth.Grant;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.Granter;
import ai.cotal.auth.InboxNonce;
import ai.cotal.auth.ServiceEndpoints;
import ai.cotal.auth.service.AuthService;
import ai.cotal.auth.service.AuthServiceOptions;
import ai.cotal.auth.service.StockPlane;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.Principal;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.signer.SignerPolicy;
import ai.cotal.signer.SignerServer;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #24: the signer stops mid-traffic. Connects are refused {@code unavailable}, a host
 * invocation writes nothing its replay cannot finish, the plane's standing renewals wait for the
 * signer instead of fencing; when the signer is back, traffic resumes without restarting the plane.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class RemoteSignerOutageBrokerTest {
    private static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";
    private static final String IID = "abcdefghijklmnopqrstuvwxyz";
    private static final String UNAVAILABLE = "unavailable: the auth service could not check this connect now";

    @TempDir
    Path dir;

    private static void await(String what, BooleanSupplier condition) {
        Instant deadline = Instant.now().plusSeconds(15);
        while (!condition.getAsBoolean()) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("not within 15 s: " + what);
            }
            Thread.onSpinWait();
        }
    }

    @Test
    void aSignerStoppedMidTrafficMakesConnectsUnavailableAndItsReturnResumesThemWithoutAPlaneRestart(NatsBrokers brokers)
            throws Exception {
        RemoteSpace space = new RemoteSpace(dir);
        NatsBroker nats = brokers.start(space::config);
        SignerPolicy stock = SignerPolicy.stock("alpha", space.auth.account().accountPublicKey());
        SignerServer signer = space.startSigner(stock);
        RemoteSpace.Observed[] observed = new RemoteSpace.Observed[1];
        AuthPlaneOptions plane = StockPlane.options(nats.url(), "alpha", dir.resolve("state"), space.serviceStore,
                space.remote(c -> observed[0] = new RemoteSpace.Observed(c)))
                .serviceEndpoints(ServiceEndpoints.normal()).standingTtl(Duration.ofSeconds(12)).build();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong admitted = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        Thread traffic = null;
        try (AuthService service = AuthService.open(plane, AuthServiceOptions.builder().build())) {
            ActorRow row = service.plane().ledger().grantActor(Principal.of(OWNER, "laptop"), Grant.of(List.of("chat"),
                    List.of("general"), List.of("general")));
            String bearer = service.plane().bearers().issue(BearerRequest.member(Principal.of(OWNER, "laptop"), List.of("chat"),
                    row.lifecycleUid(), service.plane().credentials().mint(Principal.of(OWNER, "laptop"), row.lifecycleUid()).id(),
                    Duration.ofMinutes(10)));
            traffic = new Thread(() -> {
                while (!stop.get()) {
                    try {
                        RemoteSignerServiceBrokerTest.connect(nats, space, bearer, InboxNonce.forPrincipal(Principal.of(OWNER, "laptop")))
                                .close();
                        admitted.incrementAndGet();
                    } catch (Exception e) {
                        refused.incrementAndGet();
                    }
                }
            }, "connect-traffic");
            traffic.start();
            await("connects are admitted", () -> admitted.get() >= 3);

            long mark = nats.log().mark();
            signer.close(); // the signer goes away mid-traffic
            nats.log().await(mark, l -> l.contains(UNAVAILABLE), Duration.ofSeconds(10))
                    .orElseThrow(() -> new AssertionError("no unavailable refusal in the broker's log"));
            await("connects fail while the signer is down", () -> refused.get() > 0);
            await("a standing connection's renewal met the signer down", () -> observed[0].saw("cotal:auth-", "unavailable"));

            Granter granter = new Granter.Owner(OWNER, "laptop");
            HostRequest.Register register = new HostRequest.Register("req-outage-0000000001", "weather", IID,
                    "sha256:" + "c".repeat(64), List.of("ask"));
            long started = System.nanoTime();
            String answer;
            try {
                HostResult during = service.plane().serviceEndpoints().orElseThrow().admit(granter, register);
                assertNotEquals(HostResult.Status.PENDING, during.status(), "nothing registered without a signature");
                assertNotEquals(HostResult.Status.COMPLETED, during.status());
                answer = during.status().wire();
            } catch (CotalException e) {
                assertEquals(ErrorCode.UNAVAILABLE, e.code(), e.getMessage());
                answer = e.code().wire();
            }
            System.out.printf("register while the signer is down: %s in %d ms%n", answer,
                    (System.nanoTime() - started) / 1_000_000);
            observed[0].calls.clear();
            signer = space.startSigner(stock); // back, on the same socket
            long before = admitted.get();
            await("connects are admitted again", () -> admitted.get() > before);
            await("the standing connections renew again", () -> observed[0].saw("cotal:auth-", "signed"));
            assertEquals(HostResult.Status.PENDING, service.plane().serviceEndpoints().orElseThrow()
                    .admit(granter, register).status(), "the replay of the held register finishes it");
            assertFalse(service.plane().fenced().isDone(), "the plane never fenced");
            assertEquals(AuthService.State.READY, service.state());
        } finally {
            stop.set(true);
            if (traffic != null) {
                traffic.join();
            }
            signer.close();
        }
    }
}
