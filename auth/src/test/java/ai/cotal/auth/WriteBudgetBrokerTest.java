package ai.cotal.auth;

import ai.cotal.auth.internal.callout.CalloutFixture;
import ai.cotal.auth.internal.callout.AuthCallout;
import ai.cotal.auth.InboxNonce;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.CredentialId;
import ai.cotal.core.id.Principal;
import ai.cotal.core.stores.StoreSpecs;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #16.1: what one principal can make the plane write is budgeted per principal and per
 * space, refused with the limit's name before anything is written, and a store near its bound
 * refuses budgeted writes before the broker refuses everyone.
 */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class WriteBudgetBrokerTest {
    private static final String AUTH = "KV_cotal_auth_alpha";
    private final CalloutFixture f = new CalloutFixture();

    @TempDir
    Path stateDir;

    private static StreamState state(Connection admin, String stream) throws Exception {
        return admin.jetStreamManagement().getStreamInfo(stream).getStreamState();
    }

    private static ActorRow grant(AuthAuthorityPlane plane, String actor) {
        return plane.ledger().grantActor(Principal.of(CalloutFixture.OWNER, actor), Grant.of(List.of("chat"), List.of(),
                List.of()));
    }

    private static String mint(AuthAuthorityPlane plane, ActorRow row) {
        return plane.credentials().mint(row.principal(), row.lifecycleUid()).id().value();
    }

    @Test
    void aPrincipalOverItsMintBudgetIsRefusedNamingTheLimitWhileAnotherStillMints(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.plane.options(nats, stateDir)
                .mintsPerPrincipalPerMinute(3).mintsPerSpacePerMinute(5).build()); Connection admin = f.plane.admin(nats)) {
            ActorRow laptop = grant(plane, "laptop");
            ActorRow desk = grant(plane, "desk");
            ActorRow phone = grant(plane, "phone");
            for (int i = 0; i < 3; i++) {
                mint(plane, laptop);
            }
            long before = state(admin, AUTH).getLastSequence();
            CotalException over = assertThrows(CotalException.class, () -> mint(plane, laptop));
            assertEquals(ErrorCode.RESOURCE_EXHAUSTED, over.code());
            assertTrue(over.getMessage().startsWith("credential budget: this principal made 3 credentials in the last"
                    + " minute (limit 3 per principal per minute)"), over.getMessage());
            assertEquals(before, state(admin, AUTH).getLastSequence(), "refused before anything was written");

            mint(plane, desk); // another principal still mints
            mint(plane, desk);
            CotalException space = assertThrows(CotalException.class, () -> mint(plane, phone));
            assertEquals(ErrorCode.RESOURCE_EXHAUSTED, space.code());
            assertTrue(space.getMessage().contains("limit 5 per space per minute"), space.getMessage());
            // desk's two credential rows and its lifecycle head (its first mint activates it, SPEC §14.1)
            assertEquals(before + 3, state(admin, AUTH).getLastSequence(), "the space's refusal wrote nothing either");
            assertNull(admin.keyValue("cotal_auth_alpha").get("lifecycle.head." + CalloutFixture.OWNER + ".phone"),
                    "the refused mint activated nothing: the head is written only after the charge");
        }
    }

    private static String managerBearer(AuthAuthorityPlane plane, ActorRow row) {
        return plane.bearers().issue(BearerRequest.managerCaller(row.principal(), List.of("chat"), row.lifecycleUid(),
                new CredentialId(mint(plane, row)), Duration.ofMinutes(5)));
    }

    @Test
    void aPrincipalOverItsIssuanceBudgetGetsASignedRefusalWhileAnotherConnects(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        long mark = nats.log().mark();
        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.plane.options(nats, stateDir)
                .issuancesPerPrincipalPerMinute(2).build()); AuthCallout callout = f.responder(nats, plane);
             Connection admin = f.plane.admin(nats)) {
            TestManager.forOwner(plane, nats, CalloutFixture.OWNER).close(); // a candidate manager (SPEC §14.4)
            String flooder = managerBearer(plane, grant(plane, "laptop"));
            String other = managerBearer(plane, grant(plane, "desk"));
            f.connect(nats, flooder, InboxNonce.of(Principal.of(CalloutFixture.OWNER, "laptop"), "flood-000001")).close();
            f.connect(nats, flooder, InboxNonce.of(Principal.of(CalloutFixture.OWNER, "laptop"), "flood-000002")).close();
            long accepted = state(admin, "KV_cotal_accepted_alpha").getMsgCount();
            long evidence = state(admin, "KV_cotal_issued_alpha").getLastSequence();
            Exception refused = f.refused(nats, flooder, InboxNonce.of(Principal.of(CalloutFixture.OWNER, "laptop"), "flood-000003"));
            assertTrue(refused.getMessage().contains("Authorization Violation"), refused.getMessage());
            assertEquals(accepted, state(admin, "KV_cotal_accepted_alpha").getMsgCount(), "no accepted row for the refusal");
            assertEquals(evidence, state(admin, "KV_cotal_issued_alpha").getLastSequence(), "no evidence either");

            try (CalloutFixture.Client again = f.connect(nats, flooder, InboxNonce.of(Principal.of(CalloutFixture.OWNER, "laptop"),
                    "flood-000001"))) {
                assertEquals(Connection.Status.CONNECTED, again.connection().getStatus(),
                        "a confirm of an existing accepted row writes nothing and is not charged");
            }
            try (CalloutFixture.Client desk = f.connect(nats, other, InboxNonce.of(Principal.of(CalloutFixture.OWNER, "desk"),
                    "desk-0000001"))) {
                assertEquals(Connection.Status.CONNECTED, desk.connection().getStatus(), "another principal connects");
            }
            assertEquals(accepted + 1, state(admin, "KV_cotal_accepted_alpha").getMsgCount());
        }
        assertTrue(nats.log().containsSince(mark, "issuance budget: this principal made 2 manager-caller issuances in the"
                + " last minute (limit 2 per principal per minute)"), "the broker applied the signed refusal:\n"
                + String.join("\n", nats.log().tail(40)));
    }

    @Test
    void storePressureRefusesBudgetedWritesBeforeTheStoreFills(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        long bound = 256 * 1024;
        try (Connection admin = f.plane.admin(nats)) {
            // an operator's small bound (SPEC §6): the plane keeps it and reads its pressure
            admin.jetStreamManagement().addStream(StreamConfiguration.builder(StoreSpecs.auth("alpha")).maxBytes(bound)
                    .build());
            try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.plane.options(nats, stateDir)
                    .mintsPerPrincipalPerMinute(1_000_000).mintsPerSpacePerMinute(1_000_000).build())) {
                ActorRow laptop = grant(plane, "laptop");
                String last = null;
                CotalException pressure = null;
                for (int i = 0; i < 5_000 && pressure == null; i++) { // 256 KiB holds under 1,000 rows
                    try {
                        last = mint(plane, laptop);
                    } catch (CotalException e) {
                        pressure = e;
                    }
                }
                assertTrue(pressure != null, "the plane refused before the loop ran out");
                assertEquals(ErrorCode.RESOURCE_EXHAUSTED, pressure.code(), pressure.getMessage());
                assertTrue(pressure.getMessage().startsWith("store pressure: " + AUTH + " at "), pressure.getMessage());
                StreamState state = state(admin, AUTH);
                assertTrue(state.getByteCount() < bound, "refused before the broker's bound: " + state.getByteCount());
                assertTrue(state.getByteCount() >= bound * StoreSpecs.HIGH_WATER, "refused above the high-water mark");
                plane.credentials().revoke(new CredentialId(last)); // an unbudgeted write still finds room
                assertEquals(ErrorCode.RESOURCE_EXHAUSTED, assertThrows(CotalException.class, () -> mint(plane, laptop))
                        .code(), "budgeted writes stay refused while the store is above the mark");
            }
        }
    }

    @Test
    void issuedStorePressureRefusesNewIssuancesButNotConfirms(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        // 1 MiB: above the 80% mark, up to 64 issuances (~120 KB) may land before the pressure is read again
        long bound = 1024 * 1024;
        String issued = "KV_cotal_issued_alpha";
        try (Connection admin = f.plane.admin(nats)) {
            admin.jetStreamManagement().addStream(StreamConfiguration.builder(StoreSpecs.issued("alpha")).maxBytes(bound)
                    .build());
            try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(f.plane.options(nats, stateDir)
                    .issuancesPerPrincipalPerMinute(1_000_000).issuancesPerSpacePerMinute(1_000_000).build())) {
                BearerClaims bearer = plane.bearers().verify(managerBearer(plane, grant(plane, "laptop")));
                ai.cotal.core.issued.Ceiling ceiling = new ai.cotal.core.issued.Ceiling(
                        ai.cotal.core.issued.Ceiling.Side.patterns(List.of("P.svc.manager.x.chat"), List.of()),
                        ai.cotal.core.issued.Ceiling.Side.none());
                CotalException pressure = null;
                int n = 0;
                while (pressure == null && n < 2_000) { // 1 MiB holds under 600 issuances
                    try {
                        plane.issuedCallers().issue(bearer, "ibx-pressure-" + n, ceiling);
                        n++;
                    } catch (CotalException e) {
                        pressure = e;
                    }
                }
                assertTrue(pressure != null && pressure.code() == ErrorCode.RESOURCE_EXHAUSTED, String.valueOf(pressure));
                assertTrue(pressure.getMessage().startsWith("store pressure: " + issued + " at "), pressure.getMessage());
                assertTrue(pressure.getMessage().contains("new manager-caller issuances"), pressure.getMessage());
                assertTrue(state(admin, issued).getByteCount() < bound, "refused before the broker's bound");
                assertEquals(ceiling, plane.issuedCallers().issue(bearer, "ibx-pressure-0", ceiling),
                        "a confirm writes nothing and is not refused");
            }
        }
    }

    @Test
    void theBudgetOptionsAreValidatedNamingTheOption() {
        java.util.Map<String, java.util.function.UnaryOperator<AuthPlaneOptions.Builder>> bad = java.util.Map.of(
                "mintsPerPrincipalPerMinute", b -> b.mintsPerPrincipalPerMinute(0),
                "mintsPerSpacePerMinute", b -> b.mintsPerSpacePerMinute(1_000_001),
                "issuancesPerPrincipalPerMinute", b -> b.issuancesPerPrincipalPerMinute(-1),
                "issuancesPerSpacePerMinute", b -> b.issuancesPerSpacePerMinute(0),
                "endpointWritesPerPrincipalPerMinute", b -> b.endpointWritesPerPrincipalPerMinute(0),
                "endpointWritesPerSpacePerMinute", b -> b.endpointWritesPerSpacePerMinute(1_000_001));
        bad.forEach((option, set) -> {
            CotalException e = assertThrows(CotalException.class, () -> set.apply(AuthPlaneOptions.builder()
                    .server("nats://127.0.0.1:4222").space("alpha").stateDir(stateDir).secretStore(f.plane.store)
                    .signer(new ai.cotal.core.trust.SpaceAuth(f.plane.broker, f.plane.space).strip())).build());
            assertEquals(ErrorCode.BAD_REQUEST, e.code());
            assertTrue(e.getMessage().contains(option), e.getMessage());
        });
        AuthPlaneOptions defaults = AuthPlaneOptions.builder().server("nats://127.0.0.1:4222").space("alpha")
                .stateDir(stateDir).secretStore(f.plane.store)
                .signer(new ai.cotal.core.trust.SpaceAuth(f.plane.broker, f.plane.space).strip()).build();
        assertEquals(List.of(60, 600, 30, 300, 30, 300), List.of(defaults.mintsPerPrincipalPerMinute(),
                defaults.mintsPerSpacePerMinute(), defaults.issuancesPerPrincipalPerMinute(),
                defaults.issuancesPerSpacePerMinute(), defaults.endpointWritesPerPrincipalPerMinute(),
                defaults.endpointWritesPerSpacePerMinute()));
        assertEquals(ai.cotal.auth.WriteBudgets.defaults(), defaults.writeBudgets());
        CotalException direct = assertThrows(CotalException.class, () -> new ai.cotal.auth.WriteBudgets(1, 1, 1, 1, 1, 0));
        assertTrue(direct.getMessage().contains("endpointWritesPerSpacePerMinute"), direct.getMessage());
    }

    @Test
    void theWriterBoundsAnAuthStoreOfTheOlderShape(NatsBrokers brokers) throws Exception {
        NatsBroker nats = brokers.start(f::config);
        try (Connection admin = f.plane.admin(nats)) {
            JetStreamManagement jsm = admin.jetStreamManagement();
            jsm.addStream(StreamConfiguration.builder(StoreSpecs.auth("alpha")).maxBytes(-1).build());
            try (AuthAuthorityPlane plane = f.open(nats, stateDir)) {
                assertEquals(StoreSpecs.AUTH_BYTES, jsm.getStreamInfo(AUTH).getConfiguration().getMaxBytes());
            }
        }
    }
}
