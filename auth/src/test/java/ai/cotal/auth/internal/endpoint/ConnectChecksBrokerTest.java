package ai.cotal.auth.internal.endpoint;

import static ai.cotal.auth.internal.endpoint.EndpointFixture.OTHER;
import static ai.cotal.auth.internal.endpoint.EndpointFixture.OWNER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.EndpointInstance;
import ai.cotal.auth.Grant;
import ai.cotal.auth.internal.callout.EndpointAccess;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.Principal;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.servicehost.HostResult.Status;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the callout reads at connect (SPEC §13.16) and the grantee index behind it (§13.1): written
 * after the grant, dropped after the revoke, caught up by a replay; the grant row decides.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class ConnectChecksBrokerTest {
    @TempDir
    Path stateDir;

    private static String grant(EndpointFixture x, String iid, List<String> capabilities) {
        HostResult granted = x.call(x.owner, grantRequest(iid, capabilities));
        assertEquals(Status.GRANTED, granted.status(), granted.reason());
        return granted.grant().grantId();
    }

    private static HostRequest.CallerGrant grantRequest(String iid, List<String> capabilities) {
        return new HostRequest.CallerGrant(EndpointFixture.rid(), "weather", iid, new HostRequest.Grantee(OTHER, "laptop"),
                capabilities);
    }

    private static List<EndpointAccess.Grant> grantsOfOther(EndpointFixture x) {
        ActorRow row = x.plane.ledger().find(Principal.of(OTHER, "laptop")).orElseThrow();
        return x.engine.connects().callerGrants(OTHER, "laptop", row.lifecycleUid().value());
    }

    private static String refusal(Runnable check) {
        CotalException e = assertThrows(CotalException.class, check::run);
        assertEquals(ErrorCode.PERMISSION_DENIED, e.code());
        return e.getMessage();
    }

    @Test
    void theIndexListsEachGrantAfterItsRowAndDropsItAfterTheRevoke(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            String iid = EndpointFixture.iid();
            x.approved(x.owner, "weather", iid);
            String ask = grant(x, iid, List.of("ask"));
            String stream = grant(x, iid, List.of("stream"));
            EndpointInstance weather = new EndpointInstance("weather", iid);
            assertEquals(List.of(new EndpointAccess.Grant(ask, weather, List.of("ask")),
                    new EndpointAccess.Grant(stream, weather, List.of("stream"))), grantsOfOther(x));
            assertEquals(List.of(), x.engine.connects().callerGrants(OWNER, "laptop",
                    x.plane.ledger().find(Principal.of(OWNER, "laptop")).orElseThrow().lifecycleUid().value()), "nobody else holds them");

            HostResult revoked = x.call(x.owner, new HostRequest.CallerRevoke(EndpointFixture.rid(), "weather", iid, ask));
            assertEquals(Status.COMPLETED, revoked.status());
            assertTrue(x.get(Rows.grantee(OTHER, "laptop", "weather", iid)).contains("\"grants\":[\"" + stream + "\"]"));
            assertEquals(List.of(new EndpointAccess.Grant(stream, weather, List.of("stream"))), grantsOfOther(x));

            x.call(x.owner, new HostRequest.Revoke(EndpointFixture.rid(), "weather", iid));
            assertEquals(List.of(), grantsOfOther(x), "a grant on a retired gate gives nothing");
        }
    }

    @Test
    void aGrantWhoseIndexWriteWasLostIsFoundOnlyAfterTheReplay(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            String iid = EndpointFixture.iid();
            x.approved(x.owner, "weather", iid);
            HostRequest.CallerGrant request = grantRequest(iid, List.of("ask"));
            x.engine.hooks(new Hooks() {
                @Override
                public void beforeStep(String key, Plan.Tag tag, EffectConnection effect) {
                    if (tag == Plan.Tag.GRANTEE) {
                        x.kick(effect.connection().getServerInfo().getClientId());
                        effect.gone().join();
                    }
                }
            });
            HostResult held = x.call(x.owner, request);
            x.engine.hooks(Hooks.NONE);
            assertEquals(Status.HELD, held.status());
            assertEquals("fenced", held.reason());
            assertTrue(x.get(Rows.grant("weather", iid, held.operationId())).contains("\"active\""), "the grant landed");
            assertEquals(List.of(), grantsOfOther(x), "not in effect before its operation answers granted");

            HostResult replay = x.call(x.owner, request);
            assertEquals(Status.GRANTED, replay.status(), replay.reason());
            assertEquals(List.of(new EndpointAccess.Grant(held.operationId(), new EndpointInstance("weather", iid),
                    List.of("ask"))), grantsOfOther(x));
        }
    }

    @Test
    void aPrincipalGrantedAgainHoldsNoneOfItsPredecessorsGrants(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            String iid = EndpointFixture.iid();
            x.approved(x.owner, "weather", iid);
            grant(x, iid, List.of("ask"));
            x.plane.ledger().revoke(Principal.of(OTHER, "laptop"));
            x.plane.ledger().grantActor(Principal.of(OTHER, "laptop"), Grant.of(List.of(), List.of(), List.of()));
            assertEquals(List.of(), grantsOfOther(x));
        }
    }

    @Test
    void aTrippedHostRefusesServingConnectsAndGivesCallersNoGrant(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            String iid = EndpointFixture.iid();
            x.approved(x.owner, "weather", iid);
            grant(x, iid, List.of("ask"));
            x.engine.trip("test: the discovery connection failed to renew");
            assertEquals(List.of(), grantsOfOther(x));
            CotalException serving = assertThrows(CotalException.class,
                    () -> x.engine.connects().checkServing(OWNER, new EndpointInstance("weather", iid)));
            assertEquals(ErrorCode.UNAVAILABLE, serving.code());
        }
    }

    @Test
    void aServingConnectIsAdmittedOnlyByAnOpenGateAndAnActiveAssignmentOfItsOwner(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            ConnectChecks checks = x.engine.connects();
            EndpointInstance weather = new EndpointInstance("weather", EndpointFixture.iid());
            assertEquals("endpoint-server: no such instance of this owner",
                    refusal(() -> checks.checkServing(OWNER, weather)));
            assertEquals(Status.PENDING, x.call(x.owner, x.register("weather", weather.instanceId())).status());
            assertTrue(refusal(() -> checks.checkServing(OWNER, weather)).contains("gate frozen"));
            assertEquals(Status.COMPLETED, x.call(x.owner, x.approve("weather", weather.instanceId())).status());
            checks.checkServing(OWNER, weather);
            assertEquals("endpoint-server: no such instance of this owner",
                    refusal(() -> checks.checkServing(OTHER, weather)), "another owner's instance reads as missing");

            String[] between = new String[1];
            x.engine.hooks(new Hooks() {
                @Override
                public void beforeStep(String key, Plan.Tag tag, EffectConnection effect) {
                    if (tag == Plan.Tag.GATE_RETIRE) { // the assignment is fenced, the gate still open
                        between[0] = refusal(() -> checks.checkServing(OWNER, weather));
                    }
                }
            });
            x.call(x.owner, new HostRequest.Revoke(EndpointFixture.rid(), "weather", weather.instanceId()));
            x.engine.hooks(Hooks.NONE);
            assertEquals("endpoint-server: the instance was revoked (assignment fenced)", between[0]);
            assertTrue(refusal(() -> checks.checkServing(OWNER, weather)).contains("deny-new in effect"));

            EndpointInstance refused = new EndpointInstance("weather", EndpointFixture.iid());
            x.call(x.owner, x.register("weather", refused.instanceId()));
            x.call(x.owner, new HostRequest.Decide(EndpointFixture.rid(), "weather", refused.instanceId(),
                    HostRequest.Decision.REFUSE));
            assertTrue(refusal(() -> checks.checkServing(OWNER, refused)).contains("the owner refused the instance"));
        }
    }
}
