package ai.cotal.auth;

import ai.cotal.auth.records.RunRecords;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ManagerRuns.Kind;
import ai.cotal.auth.internal.callout.CalloutFixture;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.Principal;
import ai.cotal.core.issued.IssuedAuthority;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Subscription;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A remote manager serves its run requests with its standing credential (SPEC §14.6, §14.8): the
 * credential subscribes the served run-request subjects {@code P.svc.manager.<owner>.run.<op>.*.*}
 * of exactly the {@code run-<op>} commands its instance registered, receives a caller's published
 * request, replies to it and forwards it; the broker refuses it another owner's instance's run
 * subjects, an op its instance did not register, and every owner at once.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class StandingRunRequestsBrokerTest {
    static final String RUN = "run00000000000000000000001";
    static final String OTHER_OWNER = "u_zyxwvutsrqponmlkjihgfedcba";
    static final String OTHER_IID = "runmgr00000000000000000002";
    private final CalloutFixture cf = new CalloutFixture();
    private final PlaneFixture f = cf.plane;

    @TempDir
    Path stateDir;

    @Test
    void theStandingCredentialReceivesItsOwnInstancesRunRequestsAndNoOtherOnes(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(cf::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
                RunParty p = RunParty.declaring(plane, nats, cf, List.of("run-start", "run-resume"))) {
            plane.ledger().grantActor(Principal.of(OTHER_OWNER, "mgr"), Grant.of(List.of("supervise"), List.of(), List.of()));
            try (TestManager other = TestManager.candidate(plane, nats, OTHER_OWNER, "mgr", OTHER_IID,
                    RunParty.RUN_COMMANDS)) {
                p.admit(RUN);
                p.waiting(RUN, "cp1");
                Identity identity = Identity.create();
                ManagerAuthority.ServiceAuthority standing = plane.managers().issueServiceAuthority(Principal.of(RunParty.OWNER, "mgr"),
                        new InstanceId(RunParty.IID), identity.id(), Optional.empty());
                BlockingQueue<String> violations = new LinkedBlockingQueue<>();
                try (Connection remote = RunParty.connect(nats, standing.jwt(), identity, violations)) {
                    String own = RunParty.SUBJECTS + RunParty.OWNER + ".run.";
                    Subscription resumes = remote.subscribe(own + "resume.*.*");
                    remote.subscribe(own + "start.*.*");
                    remote.flush(Duration.ofSeconds(5));

                    // the caller's own request id: its accepted token (the one a resume's subject may end in)
                    String subject = RunRecords.servedSubject("alpha", RunParty.OWNER, Kind.RESUME, RUN,
                            IssuedAuthority.acceptedToken(CalloutFixture.nonce("laptop", "runcaller-" + RunParty.IID)));
                    CompletableFuture<Message> reply = p.caller.request(subject, RunRecords.envelope(RUN, "cp1", null));
                    Message request = resumes.nextMessage(Duration.ofSeconds(10));
                    assertNotNull(request, "the standing credential receives the caller's run request");
                    assertEquals(subject, request.getSubject());
                    remote.publish(request.getReplyTo(), "accepted".getBytes(StandardCharsets.UTF_8));
                    assertEquals("accepted", new String(reply.get(10, TimeUnit.SECONDS).getData(), StandardCharsets.UTF_8),
                            "and answers it once");
                    ManagerRuns.Attempt forwarded = plane.managerRuns().issueAttempt(p.holder, p.resume(RUN,
                            "att00000000000000000000001", "cp1", Optional.of(subject)));
                    assertFalse(forwarded.replayed(), "the request it received is forwarded and issued");
                    assertNull(violations.poll(), "its own instance's run subjects are granted: " + violations);

                    for (String refused : List.of(RunParty.SUBJECTS + OTHER_OWNER + ".run.resume.*.*",
                            own + "answer.*.*", RunParty.SUBJECTS + "*.run.resume.*.*")) {
                        remote.subscribe(refused);
                        remote.flush(Duration.ofSeconds(5));
                        String violation = violations.poll(10, TimeUnit.SECONDS);
                        assertNotNull(violation, "the broker refuses " + refused);
                        assertTrue(violation.contains(refused), violation);
                    }
                }
            }
        }
    }
}
