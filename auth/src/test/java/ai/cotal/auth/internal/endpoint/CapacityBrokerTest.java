package ai.cotal.auth.internal.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.servicehost.HostResult.Status;
import ai.cotal.servicehost.Views;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * An instance's capacity is 64 requests in flight (SPEC §13.1): a settled operation releases its
 * slot, so a long-lived instance serves any number of requests, and only unsettled ones fill it.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class CapacityBrokerTest {
    @TempDir
    Path stateDir;

    /** Hundreds of one owner's requests within seconds: above the default service-endpoint budget (SPEC §13.20). */
    private EndpointFixture fixture(NatsBrokers brokers) {
        return new EndpointFixture(brokers, stateDir, b -> b.endpointWritesPerPrincipalPerMinute(1_000)
                .endpointWritesPerSpacePerMinute(1_000));
    }

    private static HostRequest.CallerGrant grant(String iid) {
        return new HostRequest.CallerGrant(EndpointFixture.rid(), "weather", iid,
                new HostRequest.Grantee(EndpointFixture.OTHER, "laptop"), List.of("ask"));
    }

    @Test
    void twoHundredSequentialGrantAndRevokePairsOnOneInstanceAllComplete(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = fixture(brokers)) {
            String iid = EndpointFixture.iid();
            x.approved(x.owner, "weather", iid);
            for (int i = 0; i < 200; i++) {
                HostResult granted = x.call(x.owner, grant(iid));
                assertEquals(Status.GRANTED, granted.status(), "grant " + i + ": " + granted.reason());
                HostResult revoked = x.call(x.owner, new HostRequest.CallerRevoke(EndpointFixture.rid(), "weather", iid,
                        granted.grant().grantId()));
                assertEquals(Status.COMPLETED, revoked.status(), "revoke " + i + ": " + revoked.reason());
            }
            assertEquals("{\"v\":1,\"held\":[]}", x.get(Rows.cap("weather", iid)), "every settled request released its slot");
        }
    }

    @Test
    void sixtyFourRequestsInFlightRefuseTheNextNamingThemAndSettlingThemRestoresCapacity(NatsBrokers brokers)
            throws Exception {
        try (EndpointFixture x = fixture(brokers)) {
            String iid = EndpointFixture.iid();
            x.approved(x.owner, "weather", iid);
            AtomicBoolean holdBeforeSettling = new AtomicBoolean(true);
            x.engine.hooks(EndpointFixture.failAt(Plan.Tag.SETTLE, holdBeforeSettling, "the operation stops before it settles"));
            List<HostRequest.CallerGrant> inFlight = new ArrayList<>();
            for (int i = 0; i < Rows.CAPACITY; i++) {
                HostRequest.CallerGrant g = grant(iid);
                HostResult held = x.call(x.owner, g);
                assertEquals(Status.HELD, held.status(), "grant " + i + ": " + held.reason());
                assertNotNull(held.operationId(), "a held grant names its bound operation");
                // held before its settle: the binding is its only record (a grant's operation is created terminal)
                HostResult read = x.call(x.owner, new HostRequest.OperationRead(held.operationId()));
                assertNull(read.operation(), "no operation row before the settle: " + read.status());
                assertTrue(x.get(Rows.cap("weather", iid)).contains(g.requestId()), "the instance holds the request");
                inFlight.add(g);
            }
            List<String> held = inFlight.stream().map(HostRequest.CallerGrant::requestId).toList();

            HostRequest.CallerGrant sixtyFifth = grant(iid);
            HostResult refused = x.call(x.owner, sixtyFifth);
            assertEquals(Status.REFUSED, refused.status());
            assertNotNull(refused.operationId(), "the 65th request is bound and refused");
            assertTrue(refused.reason().contains("64 requests in flight"), refused.reason());
            // debt is what this request's own operation owes: it was never held, so nothing
            assertNull(refused.debt(), "the other requests' slots are their debt, not this refusal's: " + refused.debt());
            HostResult refusedOp = x.call(x.owner, new HostRequest.OperationRead(refused.operationId()));
            assertEquals(List.of(), refusedOp.operation().debt(), "the refused operation's row owes nothing either");
            assertEquals(Views.OperationState.REFUSED, refusedOp.operation().state());
            assertEquals(new HashSet<>(held), new HashSet<>(capacity(x, iid)), "the instance still holds the 64 in flight");

            holdBeforeSettling.set(false);
            for (HostRequest.CallerGrant g : inFlight) {
                HostResult settled = x.call(x.owner, g);
                assertEquals(Status.GRANTED, settled.status(), "the replay settles: " + settled.reason());
                assertEquals(g.requestId(), settled.requestId());
            }
            assertEquals("{\"v\":1,\"held\":[]}", x.get(Rows.cap("weather", iid)), "settling released every slot");
            assertEquals(Status.GRANTED, x.call(x.owner, grant(iid)).status(), "capacity is restored");
            assertEquals(Status.REFUSED, x.call(x.owner, sixtyFifth).status(), "a refused request stays refused");
        }
    }

    private static List<String> capacity(EndpointFixture x, String iid) {
        String cap = x.get(Rows.cap("weather", iid));
        String list = cap.substring(cap.indexOf('[') + 1, cap.lastIndexOf(']'));
        return list.isEmpty() ? List.of() : List.of(list.replace("\"", "").split(","));
    }

    @Test
    void aHeldResultCarriesTheDebtItsOperationOwesAndTheOperationReadShowsItUntilAReplayPaysIt(NatsBrokers brokers)
            throws Exception {
        try (EndpointFixture x = fixture(brokers)) {
            String iid = EndpointFixture.iid();
            x.approved(x.owner, "weather", iid);
            AtomicBoolean failRelease = new AtomicBoolean(true);
            x.engine.hooks(EndpointFixture.failAt(Plan.Tag.RELEASE, failRelease, "the release does not land"));
            HostRequest.CallerGrant g = grant(iid);
            HostResult held = x.call(x.owner, g);
            assertEquals(Status.HELD, held.status(), String.valueOf(held.reason()));
            assertEquals("unavailable", held.reason());
            assertEquals(List.of(g.requestId()), held.debt(), "settled but not released: its own slot is owed");
            HostResult read = x.call(x.owner, new HostRequest.OperationRead(held.operationId()));
            assertEquals(Views.OperationState.GRANTED, read.operation().state(), "the operation settled");
            assertEquals(List.of(g.requestId()), read.operation().debt(), "the operation read shows the debt");
            assertEquals(List.of(g.requestId()), capacity(x, iid), "the instance still holds the slot");

            failRelease.set(false);
            HostResult replay = x.call(x.owner, g);
            assertEquals(Status.COMPLETED, replay.status(), String.valueOf(replay.reason()));
            assertEquals(HostResult.Completion.STORED, replay.completion(), "the replay found the grant settled");
            assertNull(replay.debt(), "the replay paid the debt");
            assertEquals(List.of(), x.call(x.owner, new HostRequest.OperationRead(held.operationId())).operation().debt(),
                    "nothing is owed once the capacity no longer holds it");
            assertEquals(List.of(), capacity(x, iid));
        }
    }

    @Test
    void theOperatorsRevokeIsAdmittedByAFullInstance(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = fixture(brokers)) {
            String iid = EndpointFixture.iid();
            x.approved(x.owner, "weather", iid);
            x.engine.hooks(EndpointFixture.failAt(Plan.Tag.SETTLE, new AtomicBoolean(true), "the operation stops before it settles"));
            for (int i = 0; i < Rows.CAPACITY; i++) {
                assertEquals(Status.HELD, x.call(x.owner, grant(iid)).status());
            }
            HostResult ownerRevoke = x.call(x.owner, new HostRequest.Revoke(EndpointFixture.rid(), "weather", iid));
            assertEquals(Status.REFUSED, ownerRevoke.status(), "the owner's own requests fill its instance");
            x.engine.hooks(Hooks.NONE);
            HostResult revoked = x.call(x.operator, new HostRequest.Revoke(EndpointFixture.rid(), "weather", iid));
            assertEquals(HostResult.Completion.APPLIED, revoked.completion(), "an owner cannot make an instance unrevocable");
        }
    }

    @Test
    void aDecideIsNotAdmittedSoAFullPendingInstanceIsStillDecided(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = fixture(brokers)) {
            String iid = EndpointFixture.iid();
            HostRequest.Register register = x.register("weather", iid);
            assertEquals(Status.PENDING, x.call(x.owner, register).status(), "the register holds a slot");
            List<String> held = new ArrayList<>(List.of(register.requestId()));
            while (held.size() < Rows.CAPACITY) { // the instance fills up with other requests in flight
                held.add(EndpointFixture.rid());
            }
            String cap = Rows.cap("weather", iid);
            x.put(cap, "{\"v\":1,\"held\":[\"" + String.join("\",\"", held) + "\"]}");

            HostResult approved = x.call(x.owner, x.approve("weather", iid));
            assertEquals(Status.COMPLETED, approved.status(), "a full instance never blocks its decision: " + approved.reason());
            assertEquals(HostResult.Completion.APPLIED, approved.completion());
            String after = x.get(cap);
            assertFalse(after.contains(approved.requestId()), "the decide held no slot: " + after);
            assertFalse(after.contains(register.requestId()), "the register's slot was released: " + after);
            assertEquals(Rows.CAPACITY - 1, after.split("\"req-").length - 1, "only the register's slot was released: " + after);
        }
    }
}
