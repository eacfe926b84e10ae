package ai.cotal.auth.internal.endpoint;

import static ai.cotal.auth.internal.endpoint.EndpointFixture.OWNER;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import ai.cotal.servicehost.HostJson;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.servicehost.HostResult.Completion;
import ai.cotal.servicehost.HostResult.DenyNew;
import ai.cotal.servicehost.HostResult.Status;
import ai.cotal.servicehost.Views;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Every host operation's happy path and replay against a real broker (SPEC §13.1). */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class HostOperationsBrokerTest {
    @TempDir
    Path stateDir;

    /** The stored twin of an applied result: what a replay must answer, byte for byte. */
    private static byte[] storedTwin(HostResult r) {
        return HostJson.writeResult(new HostResult(Status.COMPLETED, r.requestId(), r.operationId(), Completion.STORED, r.debt(),
                r.denyNew(), null, r.reason(), r.instance(), r.instances(), r.cursor(), r.proposal(), r.operation(),
                r.name(), r.grant(), r.grants(), r.liveConnections()));
    }

    /** Answers {@code request} again and proves it wrote nothing and answered the same operation. */
    private static HostResult replay(EndpointFixture x, ai.cotal.auth.Granter g, HostRequest request, HostResult first) {
        long before = x.lastSequence();
        HostResult again = x.call(g, request);
        assertEquals(before, x.lastSequence(), "a replay of a finished request writes nothing");
        assertEquals(first.operationId(), again.operationId());
        return again;
    }

    @Test
    void everyOperationAppliesOnceAndReplaysAsStored(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            String iid = EndpointFixture.iid();
            HostRequest.Register register = x.register("weather", iid);
            HostResult unsupported = x.plane.serviceEndpoints().orElseThrow().serve(x.owner, register);
            assertEquals(Status.UNSUPPORTED, unsupported.status(), "admission is the service authority route's");
            assertEquals(register.requestId(), unsupported.requestId());
            HostResult pending = x.call(x.owner, register);
            assertEquals(Status.PENDING, pending.status());
            assertEquals(register.requestId(), pending.requestId(), "a result echoes its request");
            assertNotNull(pending.operationId());
            assertEquals(Views.ProposalState.PENDING, pending.proposal().state());
            assertEquals(OWNER, pending.proposal().owner());
            HostResult pendingAgain = replay(x, x.owner, register, pending);
            assertArrayEquals(HostJson.writeResult(pending), HostJson.writeResult(pendingAgain));
            HostResult proposal = x.call(x.owner, new HostRequest.ProposalRead(pending.operationId()));
            assertEquals(pending.proposal(), proposal.proposal());
            assertNull(proposal.requestId(), "a read has no request id to echo");
            assertEquals(Views.GateState.FROZEN, x.call(x.owner, new HostRequest.InstanceRead("weather", iid)).instance().gate().state());

            HostRequest.Decide approve = x.approve("weather", iid);
            HostResult approved = x.call(x.owner, approve);
            assertEquals(Status.COMPLETED, approved.status());
            assertEquals(Completion.APPLIED, approved.completion());
            assertNotNull(approved.approvedGateRevision(), "this invocation observed its own gate CAS");
            assertEquals(Views.ProposalState.APPROVED, approved.proposal().state());
            HostResult approvedAgain = replay(x, x.owner, approve, approved);
            assertEquals(Completion.STORED, approvedAgain.completion());
            assertNull(approvedAgain.approvedGateRevision(), "a stored approval reports no gate revision it did not see");
            assertArrayEquals(storedTwin(approved), HostJson.writeResult(approvedAgain));

            HostResult view = x.call(x.owner, new HostRequest.InstanceRead("weather", iid));
            assertEquals(Views.RegistrationState.APPROVED, view.instance().registrationState());
            assertEquals(Views.GateState.OPEN, view.instance().gate().state());
            assertEquals(approved.approvedGateRevision(), view.instance().gate().revision());
            assertEquals(Views.AssignmentState.ACTIVE, view.instance().assignment());
            assertNotNull(view.instance().approvalDigest());
            HostResult registerOp = x.call(x.owner, new HostRequest.OperationRead(pending.operationId()));
            assertEquals(Views.OperationState.COMPLETED, registerOp.operation().state());
            assertEquals(List.of(), registerOp.operation().debt(), "the decide released the register's slot");
            HostResult registerDone = replay(x, x.owner, register, pending);
            assertEquals(Completion.STORED, registerDone.completion());

            HostRequest.NameBind bind = new HostRequest.NameBind(EndpointFixture.rid(), "forecast", "weather", OWNER,
                    "dns:forecast.example", 0);
            HostResult bound = x.call(x.operator, bind);
            assertEquals(Completion.APPLIED, bound.completion(), String.valueOf(bound.reason()));
            assertEquals("dns:forecast.example", bound.name().claimReference());
            assertArrayEquals(storedTwin(bound), HostJson.writeResult(replay(x, x.operator, bind, bound)));
            assertEquals(bound.name(), x.call(x.owner, new HostRequest.NameRead("forecast")).name());
            assertEquals("ops@example.test", x.call(x.operator, new HostRequest.OperationRead(bound.operationId()))
                    .operation().auditId(), "the operator's audit id is stored and read back");
            assertNull(registerOp.operation().auditId(), "an owner's operation names no operator");

            HostRequest.CallerGrant grant = new HostRequest.CallerGrant(EndpointFixture.rid(), "weather", iid,
                    new HostRequest.Grantee(EndpointFixture.OTHER, "laptop"), List.of("ask"));
            HostResult granted = x.call(x.owner, grant);
            assertEquals(Status.GRANTED, granted.status(), String.valueOf(granted.reason()));
            assertEquals(3, x.get(Rows.grant("weather", iid, granted.grant().grantId())).split("parentRefs")[1]
                    .split(",\"state")[0].split(",").length, "a grant records its three parent references");
            HostResult grantedAgain = replay(x, x.owner, grant, granted);
            assertEquals(Completion.STORED, grantedAgain.completion());
            assertEquals(granted.grant(), grantedAgain.grant());
            String grantId = granted.grant().grantId();
            assertEquals(granted.grant(), x.call(x.owner, new HostRequest.CallerRead("weather", iid, grantId)).grant());
            assertEquals(List.of(granted.grant()), x.call(x.owner, new HostRequest.CallerList("weather", iid, null, null))
                    .grants());

            HostRequest.CallerRevoke unGrant = new HostRequest.CallerRevoke(EndpointFixture.rid(), "weather", iid, grantId);
            HostResult unGranted = x.call(x.owner, unGrant);
            assertEquals(Completion.APPLIED, unGranted.completion());
            assertEquals(Views.GrantState.REVOKED, unGranted.grant().state());
            assertArrayEquals(storedTwin(unGranted), HostJson.writeResult(replay(x, x.owner, unGrant, unGranted)));

            HostRequest.Revoke revoke = new HostRequest.Revoke(EndpointFixture.rid(), "weather", iid);
            HostResult revoked = x.call(x.owner, revoke);
            assertEquals(Completion.APPLIED, revoked.completion());
            assertEquals(DenyNew.IN_EFFECT, revoked.denyNew(), "the gate read after the CAS shows deny-new");
            HostResult revokedAgain = replay(x, x.owner, revoke, revoked);
            assertEquals(Completion.STORED, revokedAgain.completion());
            assertEquals(DenyNew.LANDED, revokedAgain.denyNew());
            HostResult after = x.call(x.owner, new HostRequest.InstanceRead("weather", iid));
            assertEquals(Views.RegistrationState.REVOKED, after.instance().registrationState());
            assertEquals(Views.GateState.RETIRED, after.instance().gate().state());
        }
    }

    @Test
    void theHostIsOffByDefaultAndRefusesOnceThePlaneCloses(NatsBrokers brokers) throws Exception {
        ai.cotal.auth.PlaneFixture f = new ai.cotal.auth.PlaneFixture();
        ai.cotal.testbroker.NatsBroker nats = brokers.start(f::config);
        HostRequest read = new HostRequest.NameRead("forecast");
        try (ai.cotal.auth.AuthAuthorityPlane plane = ai.cotal.auth.AuthAuthorityPlane.open(f.options(nats,
                stateDir.resolve("off")).build())) {
            org.junit.jupiter.api.Assertions.assertTrue(plane.serviceEndpoints().isEmpty(),
                    "a plane opened without service endpoints hands out no host");
        }
        EndpointFixture x = new EndpointFixture(brokers, stateDir.resolve("on"));
        assertEquals(Status.DENIED, x.call(x.operator, read).status(), "no such name");
        x.close();
        ai.cotal.core.CotalException closed = org.junit.jupiter.api.Assertions.assertThrows(
                ai.cotal.core.CotalException.class, () -> x.call(x.operator, read));
        assertEquals(ai.cotal.core.ErrorCode.UNAVAILABLE, closed.code());
    }

    @Test
    void refusedDecisionsAndWrongGrantersNeverBind(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            String iid = EndpointFixture.iid();
            HostResult pending = x.call(x.owner, x.register("weather", iid));
            long before = x.lastSequence();
            for (HostResult denied : List.of(
                    x.call(x.operator, x.register("weather", EndpointFixture.iid())),
                    x.call(x.other, x.approve("weather", iid)),
                    x.call(x.owner, x.approve("weather", EndpointFixture.iid())),
                    x.call(x.owner, new HostRequest.NameBind(EndpointFixture.rid(), "n", "weather", OWNER, "c", 0)),
                    x.call(x.operator, new HostRequest.NameBind(EndpointFixture.rid(), "n", "weather", OWNER, "c", 1)),
                    x.call(x.owner, new HostRequest.Revoke(EndpointFixture.rid(), "weather", iid)),
                    x.call(x.other, new HostRequest.InstanceRead("weather", iid)))) {
                assertEquals(Status.DENIED, denied.status(), String.valueOf(denied.reason()));
                assertNull(denied.operationId(), "a denied result names no operation");
            }
            assertEquals(before, x.lastSequence(), "denied requests wrote nothing");

            HostRequest.Decide refuse = new HostRequest.Decide(EndpointFixture.rid(), "weather", iid,
                    HostRequest.Decision.REFUSE);
            HostResult refused = x.call(x.owner, refuse);
            assertEquals(Completion.APPLIED, refused.completion());
            assertEquals(Views.ProposalState.REFUSED, refused.proposal().state());
            HostResult late = x.call(x.owner, x.approve("weather", iid));
            assertEquals(Status.REFUSED, late.status(), "a proposal decided the other way refuses");
            assertNotNull(late.operationId());
            assertEquals(Views.OperationState.REFUSED, x.call(x.owner, new HostRequest.OperationRead(pending.operationId()))
                    .operation().state());

            long beforeForeign = x.lastSequence();
            HostResult foreign = x.call(x.other, refuse);
            assertEquals(Status.DENIED, foreign.status(), "a request id is bound to its granter");
            assertEquals(null, foreign.proposal(), "another owner learns nothing from a replay");
            assertEquals(beforeForeign, x.lastSequence());
            HostRequest.Decide clash = new HostRequest.Decide(refuse.requestId(), "weather", iid,
                    HostRequest.Decision.APPROVE);
            long beforeClash = x.lastSequence();
            HostResult clashed = x.call(x.owner, clash);
            assertEquals(Status.DENIED, clashed.status(), "the same request id with another body can never bind");
            assertEquals(beforeClash, x.lastSequence());
        }
    }

    @Test
    void reverseDnsEndpointsLiveUnderTheirTokenKeysAndReadBackByName(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            String iid = EndpointFixture.iid();
            x.approved(x.owner, "com.example.weather", iid);
            x.approved(x.owner, "com-example-weather", iid); // another name: its token differs
            assertNotNull(x.get("epgate.com_example_weather." + iid), "keys carry the name's token");
            assertNotNull(x.get("svc.asg." + OWNER + ".com_example_weather." + iid));
            List<String> endpoints = x.call(x.owner, new HostRequest.InstanceList(null, null)).instances().stream()
                    .map(Views.Instance::endpoint).sorted().toList();
            assertEquals(List.of("com-example-weather", "com.example.weather"), endpoints, "the list maps tokens back");
            HostResult granted = x.call(x.owner, new HostRequest.CallerGrant(EndpointFixture.rid(), "com.example.weather",
                    iid, new HostRequest.Grantee(EndpointFixture.OTHER, "laptop"), List.of("ask")));
            assertEquals(Status.GRANTED, granted.status(), granted.reason());
            assertEquals(List.of(granted.grant()), x.call(x.owner, new HostRequest.CallerList("com.example.weather", iid,
                    null, null)).grants());
            assertEquals(List.of(), x.call(x.owner, new HostRequest.CallerList("com-example-weather", iid, null, null))
                    .grants(), "another name's grants are its own");
            HostRequest.NameBind bind = new HostRequest.NameBind(EndpointFixture.rid(), "com.example.forecast",
                    "com.example.weather", OWNER, "dns:forecast.example.com", 0);
            assertEquals(Completion.APPLIED, x.call(x.operator, bind).completion());
            assertEquals("com.example.weather", x.call(x.owner, new HostRequest.NameRead("com.example.forecast")).name()
                    .endpoint());
        }
    }

    @Test
    void instanceListWalksOneOwnersInstancesOnceEachAcrossPages(NatsBrokers brokers) throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            java.util.Set<String> mine = new java.util.TreeSet<>();
            for (int i = 0; i < 7; i++) {
                String iid = EndpointFixture.iid();
                x.approved(x.owner, "weather", iid);
                mine.add(iid);
            }
            x.approved(x.other, "weather", EndpointFixture.iid());
            x.approved(x.other, "tides", EndpointFixture.iid());

            List<String> seen = new java.util.ArrayList<>();
            String cursor = null;
            int pages = 0;
            String addedDuringWalk = null;
            do {
                HostResult page = x.call(x.owner, new HostRequest.InstanceList(cursor, 3));
                pages++;
                page.instances().forEach(v -> {
                    assertEquals(OWNER, v.owner(), "another owner's instance never appears");
                    seen.add(v.instanceId());
                });
                if (pages == 1) {
                    addedDuringWalk = EndpointFixture.iid();
                    x.approved(x.owner, "weather", addedDuringWalk);
                }
                cursor = page.cursor();
            } while (cursor != null);
            assertEquals(seen.size(), new java.util.HashSet<>(seen).size(), "every instance at most once: " + seen);
            assertEquals(true, seen.containsAll(mine), "every instance present for the whole walk appears");
            seen.remove(addedDuringWalk);
            assertEquals(mine, new java.util.TreeSet<>(seen));
            assertEquals(true, pages >= 3, "the walk took " + pages + " pages");
        }
    }
    @Test
    void aWildcardInACallerGrantOrACeilingIsRefusedByTheContractBeforeAnythingIsWritten(NatsBrokers brokers)
            throws Exception {
        try (EndpointFixture x = new EndpointFixture(brokers, stateDir)) {
            String iid = EndpointFixture.iid();
            x.approved(x.owner, "weather", iid);
            HostRequest.CallerGrant good = new HostRequest.CallerGrant(EndpointFixture.rid(), "weather", iid,
                    new HostRequest.Grantee(EndpointFixture.OTHER, "laptop"), List.of("ask"));
            String grant = new String(HostJson.writeRequest(good), java.nio.charset.StandardCharsets.UTF_8);
            String register = new String(HostJson.writeRequest(x.register("weather", EndpointFixture.iid())),
                    java.nio.charset.StandardCharsets.UTF_8);
            long before = x.lastSequence();
            for (String[] bad : new String[][] {
                {grant.replace("[\"ask\"]", "[\">\"]"), "capabilities[0]"},
                {grant.replace("[\"ask\"]", "[\"ask.*\"]"), "capabilities[0]"},
                {grant.replace("[\"ask\"]", "[\"\"]"), "capabilities[0]"},
                {grant.replace("\"laptop\"", "\"*\""), "grantee.actor"},
                {grant.replace(EndpointFixture.OTHER, "u_>"), "grantee.owner"},
                {register.replace("[\"ask\",\"stream\"]", "[\"ask\",\">\"]"), "callerCeiling[1]"}}) {
                ai.cotal.servicehost.ContractException e = org.junit.jupiter.api.Assertions.assertThrows(
                        ai.cotal.servicehost.ContractException.class,
                        () -> HostJson.parseRequest(bad[0].getBytes(java.nio.charset.StandardCharsets.UTF_8)), bad[0]);
                assertEquals("bad-request", e.code());
                assertEquals(true, e.getMessage().contains(bad[1]), bad[1] + ": " + e.getMessage());
            }
            assertEquals(before, x.lastSequence(), "nothing was written");
            assertEquals(Status.GRANTED, x.call(x.owner, HostJson.parseRequest(grant.getBytes(
                    java.nio.charset.StandardCharsets.UTF_8))).status(), "the literal grant is granted");
        }
    }
}
