package ai.cotal.auth.internal.callout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.Grant;
import ai.cotal.auth.BearerRequest;
import ai.cotal.auth.records.ManagerRecords;
import ai.cotal.auth.TestManager;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.InstanceId;
import ai.cotal.core.id.Principal;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The session-caller view (SPEC §14.5) through the real callout: a connect is admitted only on a
 * session its candidate manager wrote for this principal, with publish rights to exactly the
 * session's commands; no session, a command the manager did not register, or a frozen manager gate
 * refuses it.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class SessionCallerBrokerTest {
    private static final String IID = "mgr0000000000000000000000001";
    private static final String SID = "session00000000000000000001";
    private static final String UNDECLARED = "session00000000000000000002";
    private static final String OTHER_OWNER = "u_zyxwvutsrqponmlkjihgfedcba";
    private final CalloutFixture f = new CalloutFixture();

    @TempDir
    Path stateDir;

    private static String sessionCaller(AuthAuthorityPlane plane, ActorRow row, String sessionId) {
        CredentialId credential = plane.credentials().mint(row.principal(), row.lifecycleUid()).id();
        return plane.bearers().issue(BearerRequest.sessionCaller(row.principal(), row.lifecycleUid(), credential,
                Duration.ofMinutes(5), ManagerRecords.sessionGrant(IID, sessionId)));
    }

    private static String logs(NatsBroker nats) {
        return String.join("\n", nats.log().tail(30));
    }

    @Test
    void aSessionCallerConnectsOnlyOnAValidSessionOfACandidateManager(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = f.open(nats, stateDir); AuthCallout callout = f.responder(nats, plane)) {
            ActorRow laptop = plane.ledger().grantActor(Principal.of(CalloutFixture.OWNER, "laptop"),
                    Grant.of(List.of("chat"), List.of(), List.of()));
            plane.ledger().grantActor(Principal.of(CalloutFixture.OWNER, "mgr"), Grant.of(List.of("chat"), List.of(), List.of()));
            try (TestManager manager = TestManager.candidate(plane, nats, CalloutFixture.OWNER, "mgr", IID)) {
                String bearer = sessionCaller(plane, laptop, SID);
                long mark = nats.log().mark();
                f.refused(nats, bearer, CalloutFixture.nonce("laptop", "session-000001"));
                assertTrue(nats.log().containsSince(mark, "session-caller: no session " + SID + " at manager instance "
                        + IID), logs(nats));

                long exp = plane.bearers().verify(bearer).expiresAt() + 600;
                manager.put(ManagerRecords.sessionKey(IID, SID), ManagerRecords.session(IID, SID, CalloutFixture.OWNER,
                        CalloutFixture.OWNER + ".laptop", List.of("status"), false, exp));
                manager.put(ManagerRecords.sessionKey(IID, UNDECLARED), ManagerRecords.session(IID, UNDECLARED,
                        CalloutFixture.OWNER, CalloutFixture.OWNER + ".laptop", List.of("delete"), false, exp));
                try (CalloutFixture.Client client = f.connect(nats, bearer, CalloutFixture.nonce("laptop", "session-000002"))) {
                    assertEquals(Connection.Status.CONNECTED, client.connection().getStatus(), "a valid session admits");
                    String p = "cotal.alpha.svc.manager." + CalloutFixture.OWNER;
                    client.connection().publish(p + ".status", new byte[0]);
                    client.connection().flush(Duration.ofSeconds(5));
                    assertTrue(!client.violation().isDone(), "the session's command is allowed");
                    client.connection().publish(p + ".spawn", new byte[0]);
                    client.connection().flush(Duration.ofSeconds(5));
                    String violation = client.violation().get(10, TimeUnit.SECONDS);
                    assertTrue(violation.contains("spawn"), "the broker refuses a command the session does not grant: "
                            + violation);
                }

                long undeclared = nats.log().mark();
                f.refused(nats, sessionCaller(plane, laptop, UNDECLARED), CalloutFixture.nonce("laptop", "session-000003"));
                assertTrue(nats.log().containsSince(undeclared, "grants delete, which the registered manager cluster does"
                        + " not declare"), logs(nats));

                plane.managers().freezeGate(new InstanceId(IID));
                long frozen = nats.log().mark();
                f.refused(nats, bearer, CalloutFixture.nonce("laptop", "session-000004"));
                assertTrue(nats.log().containsSince(frozen, "is not a candidate (frozen)"), logs(nats));
            }
        }
    }

    @Test
    void aRevokedExpiredForeignOrOtherOwnersSessionIsRefused(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = f.open(nats, stateDir); AuthCallout callout = f.responder(nats, plane)) {
            ActorRow laptop = plane.ledger().grantActor(Principal.of(CalloutFixture.OWNER, "laptop"),
                    Grant.of(List.of("chat"), List.of(), List.of()));
            plane.ledger().grantActor(Principal.of(CalloutFixture.OWNER, "mgr"), Grant.of(List.of("chat"), List.of(), List.of()));
            try (TestManager manager = TestManager.candidate(plane, nats, CalloutFixture.OWNER, "mgr", IID)) {
                String bearer = sessionCaller(plane, laptop, SID);
                long exp = plane.bearers().verify(bearer).expiresAt() + 600;
                String me = CalloutFixture.OWNER + ".laptop";
                String key = ManagerRecords.sessionKey(IID, SID);
                String[][] cases = {
                    // what the manager last wrote at the key, and the refusal the broker logs
                    {"revoked", "session-caller: session " + SID + " was revoked"},
                    {"expired", "session-caller: session " + SID + " expired"},
                    {"foreign", "session-caller: session " + SID + " was granted to another principal"},
                    {"other-owner", "session-caller: manager instance " + IID + " of " + OTHER_OWNER
                            + " is not a candidate"},
                };
                int n = 10;
                for (String[] c : cases) {
                    byte[] row = switch (c[0]) {
                        case "revoked" -> ManagerRecords.session(IID, SID, CalloutFixture.OWNER, me, List.of("status"), true, exp);
                        case "expired" -> ManagerRecords.session(IID, SID, CalloutFixture.OWNER, me, List.of("status"), false,
                                java.time.Instant.now().getEpochSecond() - 1);
                        case "foreign" -> ManagerRecords.session(IID, SID, CalloutFixture.OWNER, CalloutFixture.OWNER + ".desk",
                                List.of("status"), false, exp);
                        default -> ManagerRecords.session(IID, SID, OTHER_OWNER, me, List.of("status"), false, exp);
                    };
                    manager.put(key, row);
                    long mark = nats.log().mark();
                    f.refused(nats, bearer, CalloutFixture.nonce("laptop", "session-0000" + n++));
                    assertTrue(nats.log().containsSince(mark, c[1]), c[0] + ": " + logs(nats));
                }
                // the same key, valid again: the last value counts, so the refusals above were the rows, not the bearer
                manager.put(key, ManagerRecords.session(IID, SID, CalloutFixture.OWNER, me, List.of("status"), false, exp));
                try (CalloutFixture.Client client = f.connect(nats, bearer, CalloutFixture.nonce("laptop", "session-0000" + n))) {
                    assertEquals(Connection.Status.CONNECTED, client.connection().getStatus());
                }
            }
        }
    }
}
