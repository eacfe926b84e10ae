package ai.cotal.auth;

import ai.cotal.auth.records.RunRecords;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ManagerRuns.Kind;
import ai.cotal.auth.internal.callout.CalloutFixture;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.Principal;
import ai.cotal.core.issued.Ceiling;
import ai.cotal.core.issued.IssuedAuthority;
import ai.cotal.core.issued.IssuedRef;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.workspace.SecretKeys;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Subscription;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The served run-request subjects are the space's (SPEC §14.8: {@code P} is the space's subject
 * prefix, {@code cotal.alpha} here, never a literal {@code P.}), and a real caller may publish
 * them: a {@code manager-caller} the callout admitted publishes its own owner's run ops its bearer
 * names (SPEC §14.4), a resume only under its own accepted token (§14.8); the broker refuses
 * another owner's, another caller's token, another op and a literal {@code P.} subject. A start
 * is never kept by the plane.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class ServedRunRequestsBrokerTest {
    static final String RUN = "run00000000000000000000001";
    static final String OTHER_OWNER = "u_zyxwvutsrqponmlkjihgfedcba";
    private final CalloutFixture cf = new CalloutFixture();
    private final PlaneFixture f = cf.plane;

    @TempDir
    Path stateDir;

    @Test
    void aCallersRequestOnTheSpacesSubjectIsObservedAndALiteralPrefixNever(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(cf::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
                RunParty p = RunParty.of(plane, nats, cf); Connection admin = f.admin(nats)) {
            p.admit(RUN);
            p.waiting(RUN, "cp1");
            String literal = "P.svc.manager." + RunParty.OWNER + ".run.resume." + RUN + ".literalprefix0001";
            admin.publish(literal, RunRecords.envelope(RUN, "cp1", null)); // not the space's: nobody observes it
            admin.flush(Duration.ofSeconds(5));

            String subject = p.publishAndServe(Kind.RESUME, RUN, "cp1", null);
            assertTrue(subject.startsWith("cotal.alpha.svc.manager." + RunParty.OWNER + ".run.resume." + RUN + "."),
                    subject);
            ManagerRuns.Attempt issued = plane.managerRuns().issueAttempt(p.holder, p.resume(RUN,
                    "att00000000000000000000001", "cp1", Optional.of(subject)));
            assertFalse(issued.replayed(), "the caller's publish on the space's subject was observed");
            assertEquals(0, plane.managerRuns().observedCount(), "the literal P. publish was never observed");
            CotalException e = assertThrows(CotalException.class, () -> plane.managerRuns().issueAttempt(p.holder,
                    p.resume(RUN, "att00000000000000000000002", "cp1", Optional.of(literal))));
            assertEquals(ErrorCode.BAD_REQUEST, e.code(), e.getMessage());
            assertEquals("served: must be a served run-request subject", e.getMessage());

            p.caller.publish(literal, RunRecords.envelope(RUN, "cp1", null));
            String refused = p.nextViolation();
            assertNotNull(refused, "the broker refuses the caller's publish on a literal P. subject");
            assertTrue(refused.contains(literal), refused);
        }
    }

    @Test
    void aManagerCallerPublishesOnlyItsOwnOwnersRunOpsItsBearerNames(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(cf::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
                RunParty p = RunParty.of(plane, nats, cf)) {
            p.admit(RUN);
            String start = p.publishAndServe(Kind.START, RUN, null, null);
            assertTrue(start.startsWith(RunParty.SUBJECTS + RunParty.OWNER + ".run.start."), start);
            assertEquals(0, plane.managerRuns().observedCount(), "a start is served by the manager, never kept by the plane"
                    + " (none is ever issued for)");
            String other = RunParty.SUBJECTS + OTHER_OWNER + ".run.resume." + RUN + ".otherowner0000001";
            p.caller.publish(other, RunRecords.envelope(RUN, "cp1", null));
            String violation = p.nextViolation();
            assertNotNull(violation, "the broker refuses a run request to another owner's manager");
            assertTrue(violation.contains(other), violation);
            String anothersToken = RunRecords.servedSubject("alpha", RunParty.OWNER, Kind.RESUME, RUN,
                    IssuedAuthority.acceptedToken(CalloutFixture.nonce("phone", "someoneelse-0001")));
            p.caller.publish(anothersToken, RunRecords.envelope(RUN, "cp1", null));
            String foreign = p.nextViolation();
            assertNotNull(foreign, "the broker refuses a resume under another caller's accepted token");
            assertTrue(foreign.contains(anothersToken), foreign);

            ActorRow chatOnly = plane.ledger().grantActor(Principal.of(RunParty.OWNER, "phone"), Grant.of(List.of("chat"),
                    List.of(), List.of()));
            CredentialId credential = plane.credentials().mint(Principal.of(RunParty.OWNER, "phone"), chatOnly.lifecycleUid()).id();
            String bearer = plane.bearers().issue(BearerRequest.managerCaller(Principal.of(RunParty.OWNER, "phone"), List.of("chat"),
                    chatOnly.lifecycleUid(), credential, Duration.ofMinutes(5), new InstanceId(RunParty.IID)));
            try (CalloutFixture.Client phone = cf.connect(nats, bearer, CalloutFixture.nonce("phone", "chatonly-0001"))) {
                String resume = RunRecords.servedSubject("alpha", RunParty.OWNER, Kind.RESUME, RUN, "norunscope000001");
                phone.connection().publish(resume, RunRecords.envelope(RUN, "cp1", null));
                phone.connection().flush(Duration.ofSeconds(5));
                String refused = phone.violation().get(10, java.util.concurrent.TimeUnit.SECONDS);
                assertTrue(refused.contains(resume), "a bearer without run-resume publishes no resume: " + refused);
            }
        }
    }

    /**
     * SPEC §14.7, the issuer window: a served attempt's driver credential is recorded as an
     * issuance (evidence, an active attempt, the accepted row of the driver's key) inside a window
     * the broker sees open as {@code cotal:auth-issuer-window:alpha}; a start and the manager's own
     * resume open none and leave no issuance. The issuance confirms for exactly the driver's
     * permissions and, revoked, never again.
     */
    @Test
    void aServedAttemptIsRecordedAsAnIssuanceInsideAWindowAndNoOtherOpensOne(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(cf::config);
        Creds observer = Creds.parse(f.store.getText(SecretKeys.membershipObserverCredsKey("alpha")).orElseThrow());
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.options(nats, stateDir).build());
                RunParty p = RunParty.of(plane, nats, cf); Connection admin = f.admin(nats);
                Connection watch = NatsConnector.builder().server(nats.url()).creds(observer).label("test-observer")
                        .build().connect()) {
            Subscription connects = watch.subscribe("$SYS.ACCOUNT." + f.space.accountPublicKey() + ".CONNECT");
            watch.flush(Duration.ofSeconds(5));
            p.admit(RUN);
            p.waiting(RUN, "cp1");
            String startDriver = Identity.create().id();
            plane.managerRuns().issueAttempt(p.holder, RunParty.start(RUN, "att00000000000000000000001", startDriver));
            ManagerRuns.AttemptRequest own = p.resume(RUN, "att00000000000000000000002", "cp1", Optional.empty());
            plane.managerRuns().issueAttempt(p.holder, own);
            String subject = p.publishAndServe(Kind.RESUME, RUN, "cp1", null);
            ManagerRuns.AttemptRequest served = p.resume(RUN, "att00000000000000000000003", "cp1", Optional.of(subject));
            assertFalse(plane.managerRuns().issueAttempt(p.holder, served).replayed());

            f.admin(nats).close(); // a last connect: every earlier connect event arrives before its own
            List<String> names = new ArrayList<>();
            while (names.isEmpty() || !names.get(names.size() - 1).equals("test-admin")) {
                Message event = connects.nextMessage(Duration.ofSeconds(10));
                assertNotNull(event, "the broker's connect events so far: " + names);
                names.add(new ObjectMapper().readTree(event.getData()).path("client").path("name").asText());
            }
            assertEquals(1, names.stream().filter("cotal:auth-issuer-window:alpha"::equals).count(),
                    "one window, for the served attempt only: " + names);

            IssuedAuthority issued = IssuedAuthority.bind(admin, "alpha", source -> true, Clock.systemUTC());
            assertTrue(issued.accepted(IssuedAuthority.acceptedToken(startDriver)).isEmpty(), "a start records nothing");
            assertTrue(issued.accepted(IssuedAuthority.acceptedToken(own.driver())).isEmpty(),
                    "the manager's own resume records nothing");
            String token = IssuedAuthority.acceptedToken(served.driver());
            IssuedRef ref = issued.accepted(token).orElseThrow(() -> new AssertionError("the served attempt's issuance"));
            assertEquals(List.of(RunParty.OWNER, "worker", p.workerUid), List.of(ref.owner(), ref.actor(), ref.uid()),
                    "issued to the run's managed actor at the admission's lifecycle");
            Ceiling driver = new Ceiling(Ceiling.Side.patterns(List.of("cotal.alpha.run." + RunParty.OWNER + "." + RUN
                    + ".>"), List.of()), Ceiling.Side.patterns(List.of("_INBOX_" + served.driver() + ".>"), List.of()));
            assertEquals(ref, issued.confirm(token, driver), "active, for exactly the driver's permissions");
            issued.revoke(ref);
            CotalException revoked = assertThrows(CotalException.class, () -> issued.confirm(token, driver));
            assertEquals(ErrorCode.PERMISSION_DENIED, revoked.code(), revoked.getMessage());
        }
    }
}
