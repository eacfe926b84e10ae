package ai.cotal.auth.internal.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.Granter;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.servicehost.HostResult.Completion;
import ai.cotal.servicehost.HostResult.DenyNew;
import ai.cotal.servicehost.HostResult.Status;
import ai.cotal.servicehost.Views;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Concurrent decisions, early held answers, and revoke's deny-new evidence (SPEC §13.1). */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class HostRacesBrokerTest {
    @TempDir
    Path stateDir;

    @Test
    void sixteenConcurrentApprovalsApplyExactlyOnce(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            String iid = EndpointFixture.iid();
            HostResult pending = x.call(x.owner, x.register("weather", iid));
            long gateBefore = x.call(x.owner, new HostRequest.InstanceRead("weather", iid)).instance().gate().revision();
            ExecutorService pool = Executors.newFixedThreadPool(16);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<HostResult>> futures = new ArrayList<>();
            try {
                for (int i = 0; i < 16; i++) {
                    HostRequest.Decide d = x.approve("weather", iid);
                    futures.add(pool.submit(() -> {
                        start.await();
                        return x.plane.serviceEndpoints().orElseThrow().serve(x.owner, d,
                                java.time.Instant.now().plusSeconds(30));
                    }));
                }
                start.countDown();
                int applied = 0;
                List<Long> gateRevisions = new ArrayList<>();
                for (Future<HostResult> f : futures) {
                    HostResult r = f.get(60, TimeUnit.SECONDS);
                    assertEquals(Status.COMPLETED, r.status(), r.status() + " " + r.reason());
                    assertEquals(Views.ProposalState.APPROVED, r.proposal().state());
                    if (r.completion() == Completion.APPLIED) {
                        applied++;
                    }
                    if (r.approvedGateRevision() != null) {
                        gateRevisions.add(r.approvedGateRevision());
                    }
                    HostResult op = x.call(x.owner, new HostRequest.OperationRead(r.operationId()));
                    assertEquals(Views.OperationState.COMPLETED, op.operation().state());
                    assertEquals(List.of(), op.operation().debt());
                }
                assertEquals(1, applied, "exactly one decision applied the approval");
                assertEquals(1, gateRevisions.size(), "exactly one invocation observed the gate CAS: " + gateRevisions);
            } finally {
                pool.shutdownNow();
            }
            HostResult view = x.call(x.owner, new HostRequest.InstanceRead("weather", iid));
            assertEquals(Views.GateState.OPEN, view.instance().gate().state());
            assertTrue(view.instance().gate().revision() > gateBefore);
            assertTrue(x.get(Rows.gate("weather", iid)).contains("\"generation\":2"), "the gate moved once");
            assertTrue(x.get(Rows.cap("weather", iid)).contains("\"held\":[]"), "every slot released");
            assertEquals(Views.OperationState.COMPLETED, x.call(x.owner, new HostRequest.OperationRead(pending.operationId()))
                    .operation().state());
        }
    }

    @Test
    void theGateDecidesBetweenAnApprovalAndARefusalInFlight(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            for (boolean refusalWins : new boolean[] {true, false}) {
                String iid = EndpointFixture.iid();
                x.call(x.owner, x.register("weather", iid));
                HostRequest.Decide approve = x.approve("weather", iid);
                HostRequest.Decide refuse = new HostRequest.Decide(EndpointFixture.rid(), "weather", iid,
                        HostRequest.Decision.REFUSE);
                HostResult[] inner = new HostResult[1];
                x.engine.hooks(new Hooks() {
                    @Override
                    public void beforeStep(String key, Plan.Tag tag, EffectConnection effect) {
                        boolean cut = tag == (refusalWins ? Plan.Tag.GATE_OPEN : Plan.Tag.GATE_RETIRE);
                        if (cut && inner[0] == null) {
                            x.engine.hooks(Hooks.NONE); // the other decision runs to its end, right here
                            inner[0] = x.call(x.owner, refusalWins ? refuse : approve);
                        }
                    }
                });
                HostResult outer = x.call(x.owner, refusalWins ? approve : refuse);
                x.engine.hooks(Hooks.NONE);
                HostResult winner = inner[0];
                assertEquals(Status.COMPLETED, winner.status(), String.valueOf(winner.reason()));
                assertEquals(Completion.APPLIED, winner.completion());
                assertEquals(Status.REFUSED, outer.status(), "the decision that lost the gate is refused");
                assertEquals(refusalWins ? Views.ProposalState.REFUSED : Views.ProposalState.APPROVED,
                        winner.proposal().state());
                HostResult view = x.call(x.owner, new HostRequest.InstanceRead("weather", iid));
                assertEquals(refusalWins ? Views.RegistrationState.REFUSED : Views.RegistrationState.APPROVED,
                        view.instance().registrationState(), "the proposal follows the gate");
                assertEquals(refusalWins ? Views.GateState.RETIRED : Views.GateState.OPEN, view.instance().gate().state());
                assertEquals(refusalWins ? null : Views.AssignmentState.ACTIVE, view.instance().assignment(),
                        "no assignment unless the approval opened the gate");
                assertEquals(refusalWins, view.instance().approvalDigest() == null);
            }
        }
    }

    @Test
    void aPassThatLosesTheReleaseRaceAfterSettlingStillAnswersApplied(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            String iid = EndpointFixture.iid();
            x.call(x.owner, x.register("weather", iid));
            boolean[] moved = new boolean[1];
            x.engine.hooks(new Hooks() {
                @Override
                public void beforeStep(String key, Plan.Tag tag, EffectConnection effect) {
                    if (tag == Plan.Tag.RELEASE && !moved[0]) {
                        moved[0] = true; // another writer moves the capacity between settle and release
                        x.put(key, x.get(key));
                    }
                }
            });
            HostResult approved = x.call(x.owner, x.approve("weather", iid));
            assertTrue(moved[0]);
            assertEquals(Status.COMPLETED, approved.status());
            assertEquals(Completion.APPLIED, approved.completion(), "this invocation applied the approval");
            assertTrue(approved.approvedGateRevision() != null, "and observed its own gate CAS");
            assertTrue(x.get(Rows.cap("weather", iid)).contains("\"held\":[]"), "the release landed on the next pass");
        }
    }

    @Test
    void aReplayAfterACrashPastTheGateCasAnswersStoredNotApplied(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            String iid = EndpointFixture.iid();
            x.call(x.owner, x.register("weather", iid));
            java.util.concurrent.atomic.AtomicBoolean crashing = new java.util.concurrent.atomic.AtomicBoolean(true);
            // the gate CAS landed; the invocation dies before the assignment
            x.engine.hooks(EndpointFixture.failAt(Plan.Tag.ASSIGN, crashing, "the invocation dies past its gate CAS"));
            HostRequest.Decide approve = x.approve("weather", iid);
            HostResult first = x.call(x.owner, approve);
            crashing.set(false);
            assertEquals(Status.HELD, first.status(), "the first invocation never answered completed");
            assertEquals("unavailable", first.reason());
            assertEquals(Views.GateState.OPEN, x.call(x.owner, new HostRequest.InstanceRead("weather", iid)).instance()
                    .gate().state(), "its gate CAS landed");

            HostResult replay = x.call(x.owner, approve);
            assertEquals(Status.COMPLETED, replay.status(), String.valueOf(replay.reason()));
            assertNull(replay.approvedGateRevision(), "the replay did not observe the gate CAS");
            assertEquals(Completion.STORED, replay.completion(), "so it did not apply the approval: another invocation did");
            assertEquals(Views.AssignmentState.ACTIVE, x.call(x.owner, new HostRequest.InstanceRead("weather", iid))
                    .instance().assignment(), "the replay finished the steps the crash left");
            HostResult again = x.call(x.owner, approve);
            assertEquals(Completion.STORED, again.completion());
        }
    }

    @Test
    void aTrippedEngineOrARowlessGranterGetsOneHeldBeforeAnyRead(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            String iid = EndpointFixture.iid();
            x.approved(x.owner, "weather", iid);
            Granter.Owner ghost = new Granter.Owner("u_" + "g".repeat(26), "laptop");
            x.plane.ledger().grantManagedActor(Principal.of(EndpointFixture.OTHER, "robot"),
                    ai.cotal.auth.Grant.of(List.of(), List.of(), List.of()), "0".repeat(64), new LifecycleUid("robot".repeat(6)));
            Granter.Owner managed = new Granter.Owner(EndpointFixture.OTHER, "robot");
            String managedOnly = "u_" + "m".repeat(26);
            x.plane.ledger().grantManagedActor(Principal.of(managedOnly, "robot"),
                    ai.cotal.auth.Grant.of(List.of(), List.of(), List.of()), "0".repeat(64), new LifecycleUid("robot".repeat(6)));
            // proved without an actor (the stock route's granter): needs any current interactive row of its own
            Granter.Owner provedGhost = new Granter.Owner("u_" + "g".repeat(26));
            Granter.Owner provedManaged = new Granter.Owner(managedOnly);
            List<HostRequest> requests = List.of(x.register("weather", EndpointFixture.iid()), x.approve("weather", iid),
                    new HostRequest.Revoke(EndpointFixture.rid(), "weather", iid));
            for (Granter g : List.of(ghost, managed, provedGhost, provedManaged)) {
                for (HostRequest r : requests) {
                    long reads = x.engine.discovery().reads();
                    long seq = x.lastSequence();
                    HostResult held = x.call(g, r);
                    assertEquals(Status.HELD, held.status());
                    assertEquals("granter", held.reason());
                    assertNull(held.operationId());
                    assertNull(held.denyNew());
                    assertEquals(reads, x.engine.discovery().reads(), "no read of the request's keys");
                    assertEquals(seq, x.lastSequence(), "nothing written");
                }
            }

            HostRequest.Register proved = x.register("weather", EndpointFixture.iid());
            HostResult pending = x.call(new Granter.Owner(EndpointFixture.OWNER), proved);
            assertEquals(Status.PENDING, pending.status(), "an owner proved without an actor writes with any interactive row");
            assertEquals(pending.operationId(), x.call(x.owner, proved).operationId(),
                    "the binding is the owner's, whichever of its actors replays it");

            x.plane.ledger().revoke(Principal.of(EndpointFixture.OTHER, "robot"));
            tripByKickingTheLedgerScanner(x);
            for (HostRequest r : requests) {
                long reads = x.engine.discovery().reads();
                long seq = x.lastSequence();
                ai.cotal.core.CotalException refused = org.junit.jupiter.api.Assertions.assertThrows(
                        ai.cotal.core.CotalException.class, () -> x.call(x.owner, r), "a fenced plane's host answers no write");
                assertEquals(ai.cotal.core.ErrorCode.UNAVAILABLE, refused.code());
                assertEquals(reads, x.engine.discovery().reads(), "no read of the request's keys");
                assertEquals(seq, x.lastSequence(), "nothing written");
            }
        }
    }

    private static void tripByKickingTheLedgerScanner(EndpointFixture x) throws Exception {
        ai.cotal.auth.ScannerKick.kick(x.nats, x.f.space.accountPublicKey(), ai.cotal.auth.ScannerKick.ledgerScanner("alpha"),
                ai.cotal.core.creds.Creds.parse(x.f.store.getText(ai.cotal.workspace.SecretKeys
                        .membershipObserverCredsKey("alpha")).orElseThrow()), x.f.evictor);
        x.plane.fenced().get(10, TimeUnit.SECONDS);
    }

    @Test
    void revokeReportsDenyNewOnlyWithEvidence(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            String gateRead = EndpointFixture.iid();
            x.approved(x.owner, "weather", gateRead);
            HostResult inEffect = x.call(x.owner, new HostRequest.Revoke(EndpointFixture.rid(), "weather", gateRead));
            assertEquals(DenyNew.IN_EFFECT, inEffect.denyNew(), "a gate read after the CAS");

            HostResult landed = x.call(x.operator, new HostRequest.Revoke(EndpointFixture.rid(), "weather", gateRead));
            assertEquals(Status.COMPLETED, landed.status());
            assertEquals(Completion.STORED, landed.completion());
            assertEquals(DenyNew.LANDED, landed.denyNew(), "the assignment was already fenced");

            String foreignGate = EndpointFixture.iid();
            x.approved(x.owner, "weather", foreignGate);
            String gateKey = Rows.gate("weather", foreignGate);
            x.put(gateKey, x.get(gateKey).replaceAll("\"assignment\":\"[a-z2-7]+\"", "\"assignment\":\""
                    + Rows.newId() + "\""));
            HostResult unknown = x.call(x.owner, new HostRequest.Revoke(EndpointFixture.rid(), "weather", foreignGate));
            assertEquals(Completion.APPLIED, unknown.completion());
            assertEquals(DenyNew.UNKNOWN, unknown.denyNew(), "the gate row is another assignment's");

            String failedRead = EndpointFixture.iid();
            x.approved(x.owner, "weather", failedRead);
            x.engine.hooks(new Hooks() {
                @Override
                public void beforeGateRead(String endpoint, String instanceId) {
                    throw new ai.cotal.core.CotalException(ai.cotal.core.ErrorCode.UNAVAILABLE, "injected read failure");
                }
            });
            HostResult failed = x.call(x.owner, new HostRequest.Revoke(EndpointFixture.rid(), "weather", failedRead));
            assertEquals(Completion.APPLIED, failed.completion());
            assertEquals(DenyNew.UNKNOWN, failed.denyNew(), "the gate read failed");
            x.engine.hooks(Hooks.NONE);

            HostResult pendingOnly = x.call(x.owner, x.register("weather", EndpointFixture.iid()));
            assertNull(pendingOnly.denyNew(), "no evidence, no denyNew");
        }
    }
}
