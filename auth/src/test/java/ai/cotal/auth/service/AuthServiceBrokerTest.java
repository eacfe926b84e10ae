package ai.cotal.auth.service;

import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.Grant;
import ai.cotal.auth.SpaceProvisioning;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.ServiceEndpointHost;
import ai.cotal.auth.Granter;
import ai.cotal.auth.IdpPin;
import ai.cotal.auth.ServiceEndpoints;
import ai.cotal.auth.exchange.TokenExchange;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.Principal;
import ai.cotal.core.secrets.InMemorySecretStore;
import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.servicehost.HostRequest;
import ai.cotal.servicehost.HostResult;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import ai.cotal.workspace.SecretKeys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The stock service of one space: material from the secret store, its plane and callout, faces, readiness. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class AuthServiceBrokerTest {
    private static final String IID = "abcdefghijklmnopqrstuvwxyz";
    private final Clock clock = Clock.systemUTC();
    private final SpaceAuth auth = SpaceAuth.create("alpha", clock);
    private final CalloutAuth callout = CalloutAuth.create("alpha", auth.broker(), auth.account().accountPublicKey(), clock);
    private final InMemorySecretStore store = new InMemorySecretStore();

    @TempDir
    Path stateDir;

    private NatsBroker broker(NatsBrokers brokers) {
        return brokers.start(b -> ServerConfig.render(auth.broker(), List.of(auth.account()), ServerConfigOptions.builder()
                .transport(Transport.plaintext()).storeDir(b.storeDir()).extraAccounts(List.of(callout.jwt())).build()));
    }

    /** Fences the service's plane: its ledger scanner KICKed, as a lost scanner is. */
    private void fence(NatsBroker nats) throws Exception {
        Creds evictor = Creds.parse(store.getText(SecretKeys.connectionEvictorCredsKey("alpha")).orElseThrow());
        ai.cotal.auth.ScannerKick.kick(nats, auth.account().accountPublicKey(), ai.cotal.auth.ScannerKick
                .ledgerScanner("alpha"), Creds.parse(store.getText(SecretKeys.membershipObserverCredsKey("alpha"))
                .orElseThrow()), evictor);
    }

    /** The plane options from the store's service material: refuses a missing secret before any connection. */
    private AuthPlaneOptions.Builder plane(NatsBroker nats) {
        return StockPlane.options(nats.url(), "alpha", stateDir, store);
    }

    private static AuthServiceOptions.Builder service() {
        return AuthServiceOptions.builder();
    }

    @Test
    void anUnprovisionedSpaceFailsBeforeAnyConnectionNamingWhatIsMissing(NatsBrokers brokers) {
        NatsBroker nats = broker(brokers);
        CotalException missing = assertThrows(CotalException.class, () -> plane(nats));
        assertEquals(ErrorCode.FAILED_PRECONDITION, missing.code());
        assertTrue(missing.getMessage().contains(SecretKeys.serviceKeysKey("alpha"))
                && missing.getMessage().contains(SecretKeys.calloutKey("alpha")), missing.getMessage());
        assertFalse(Files.exists(stateDir.resolve(TokenExchange.DISCOVERY_FILE)), "no face was bound");
        assertFalse(missing.getMessage().contains("SA"), "no seed in the message");
        for (java.time.Duration bad : List.of(java.time.Duration.ofSeconds(4), java.time.Duration.ofHours(25))) {
            CotalException ttl = assertThrows(CotalException.class, () -> AuthPlaneOptions.builder().server(nats.url())
                    .space("alpha").stateDir(stateDir).secretStore(store).signer(auth.strip()).standingTtl(bad).build());
            assertTrue(ttl.getMessage().startsWith("standingTtl"), "refused at build, naming the field: " + ttl.getMessage());
        }
    }

    @Test
    void aStoreWithoutTheSystemCredentialsFailsTheStartNamingBothBeforeAnyConnection(NatsBrokers brokers) {
        NatsBroker nats = broker(brokers);
        SpaceProvisioning.forSpace(auth, callout).withoutSystemCredentials().write(store);
        CotalException missing = assertThrows(CotalException.class, () -> plane(nats));
        assertEquals(ErrorCode.FAILED_PRECONDITION, missing.code());
        assertEquals("the auth service of space \"alpha\" is not provisioned: the secret store lacks "
                + SecretKeys.membershipObserverCredsKey("alpha") + ", " + SecretKeys.connectionEvictorCredsKey("alpha")
                + " (SpaceProvisioning writes them)", missing.getMessage());
        assertFalse(Files.exists(stateDir.resolve(TokenExchange.DISCOVERY_FILE)), "no face was bound");
        assertEquals(List.of(SecretKeys.membershipObserverCredsKey("alpha"), SecretKeys.connectionEvictorCredsKey("alpha")),
                SpaceProvisioning.forSpace(auth, callout).complete(store));
        try (AuthService service = AuthService.open(plane(nats).build(), service().build())) {
            assertEquals(AuthService.State.READY, service.state(), "the completed store starts");
        }
    }

    @Test
    void provisioningCreatesTheIssuerAndOwnerSecretOnceAndAStartNeverCreatesThem(NatsBrokers brokers) {
        NatsBroker nats = broker(brokers);
        SpaceProvisioning.forSpace(auth, callout).write(store);
        byte[] secret = store.get(SecretKeys.ownerSecretKey("alpha")).orElseThrow();
        byte[] issuer = store.get(SecretKeys.issuerKeysKey("alpha")).orElseThrow();
        CotalException again = assertThrows(CotalException.class, () -> SpaceProvisioning.forSpace(auth, callout)
                .write(store));
        assertEquals(ErrorCode.ALREADY_EXISTS, again.code());
        org.junit.jupiter.api.Assertions.assertArrayEquals(secret, store.get(SecretKeys.ownerSecretKey("alpha")).orElseThrow(),
                "provisioning again never re-keys an owner");
        org.junit.jupiter.api.Assertions.assertArrayEquals(issuer, store.get(SecretKeys.issuerKeysKey("alpha")).orElseThrow());
        // service keys, callout and the system credentials alone: loading names both missing keys and creates neither
        store.delete(SecretKeys.ownerSecretKey("alpha"));
        store.delete(SecretKeys.issuerKeysKey("alpha"));
        CotalException missing = assertThrows(CotalException.class, () -> plane(nats));
        assertEquals(ErrorCode.FAILED_PRECONDITION, missing.code());
        assertTrue(missing.getMessage().contains(SecretKeys.ownerSecretKey("alpha"))
                && missing.getMessage().contains(SecretKeys.issuerKeysKey("alpha")), missing.getMessage());
        assertTrue(store.get(SecretKeys.ownerSecretKey("alpha")).isEmpty(), "the start created no owner secret");
        assertTrue(store.get(SecretKeys.issuerKeysKey("alpha")).isEmpty(), "the start created no issuer key");
        assertFalse(Files.exists(stateDir.resolve(TokenExchange.DISCOVERY_FILE)), "no face was bound");
    }

    /**
     * The material is checked as it is loaded (a foreign issuer key), the callout credential by the
     * plane's open (its responder connects last: a refused one releases the claim), the store and
     * the data account by the service's start on the open plane, before a face binds.
     */
    @Test
    void theStartChecksTheIssuerTheBrokerTheStoreAndTheAccountBeforeTakingAnything(NatsBrokers brokers) {
        NatsBroker nats = broker(brokers);
        SpaceProvisioning.forSpace(auth, callout).write(store);
        InMemorySecretStore foreign = ai.cotal.auth.PlaneFixture.provisioned("beta");
        byte[] alphaIssuer = store.get(SecretKeys.issuerKeysKey("alpha")).orElseThrow();
        store.put(SecretKeys.issuerKeysKey("alpha"), foreign.get(SecretKeys.issuerKeysKey("beta")).orElseThrow());
        CotalException wrongIssuer = assertThrows(CotalException.class, () -> plane(nats));
        assertEquals(ErrorCode.DATA_LOSS, wrongIssuer.code());
        assertTrue(wrongIssuer.getMessage().contains(SecretKeys.issuerKeysKey("alpha")), wrongIssuer.getMessage());
        store.put(SecretKeys.issuerKeysKey("alpha"), alphaIssuer);

        // a callout credential the broker does not know: the plane's open refuses it and releases its claim
        SpaceAuth other = SpaceAuth.create("alpha", clock);
        byte[] alphaCallout = store.get(SecretKeys.calloutKey("alpha")).orElseThrow();
        InMemorySecretStore unknown = new InMemorySecretStore();
        SpaceProvisioning.forSpace(auth, CalloutAuth.create("alpha", other.broker(), auth.account().accountPublicKey(), clock))
                .write(unknown);
        store.put(SecretKeys.calloutKey("alpha"), unknown.get(SecretKeys.calloutKey("alpha")).orElseThrow());
        CotalException unreachable = assertThrows(CotalException.class, () -> AuthAuthorityPlane.open(plane(nats).build()));
        assertEquals(ErrorCode.UNAUTHENTICATED, unreachable.code(), unreachable.getMessage());
        assertFalse(Files.exists(stateDir.resolve(TokenExchange.DISCOVERY_FILE)), "no face was bound");
        store.put(SecretKeys.calloutKey("alpha"), alphaCallout);

        try (AuthAuthorityPlane plane = AuthAuthorityPlane.open(plane(nats).build())) {
            assertEquals(2, plane.claim().generation(), "the refused open released the claim it had taken");
            CotalException otherStore = assertThrows(CotalException.class, () -> AuthService.start(plane, service()
                    .storeIdentity(new InMemorySecretStore().identity().orElseThrow()).build()));
            assertEquals(ErrorCode.FAILED_PRECONDITION, otherStore.code());
            assertTrue(otherStore.getMessage().startsWith("secretStore"), otherStore.getMessage());

            CotalException otherAccount = assertThrows(CotalException.class, () -> AuthService.start(plane, service()
                    .storeIdentity(store.identity().orElseThrow()).dataAccount(other.account().accountPublicKey()).build()));
            assertEquals(ErrorCode.FAILED_PRECONDITION, otherAccount.code());
            assertTrue(otherAccount.getMessage().startsWith("dataAccount"), otherAccount.getMessage());
            assertFalse(Files.exists(stateDir.resolve(TokenExchange.DISCOVERY_FILE)), "no face was bound");

            try (AuthService service = AuthService.start(plane, service().storeIdentity(store.identity().orElseThrow())
                    .dataAccount(auth.account().accountPublicKey()).build())) {
                assertEquals(AuthService.State.READY, service.state(), "the refused starts took nothing of the plane");
            }
        }
    }

    @Test
    void aFencedPlaneMakesTheServiceUnavailable(NatsBrokers brokers) throws Exception {
        NatsBroker nats = broker(brokers);
        SpaceProvisioning.forSpace(auth, callout).write(store);
        try (AuthService service = AuthService.open(plane(nats).serviceEndpoints(ServiceEndpoints.normal()).build(),
                service().build())) {
            assertTrue(Files.exists(stateDir.resolve(TokenExchange.DISCOVERY_FILE)), "ready: the capability file is there");
            fence(nats);
            service.unavailable().get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertEquals(AuthService.State.UNAVAILABLE, service.state());
            assertFalse(Files.exists(stateDir.resolve(TokenExchange.DISCOVERY_FILE)),
                    "a fenced service withdraws its capability file (issue #16 part 5)");
            assertTrue(service.cause().orElseThrow().contains("alpha"), service.cause().toString());
            CotalException refused = assertThrows(CotalException.class, () -> service.plane().serviceEndpoints()
                    .orElseThrow().serve(new Granter.Operator("ops"), new HostRequest.NameRead("forecast")));
            assertEquals(ErrorCode.UNAVAILABLE, refused.code());
        }
    }

    /**
     * The service's own host handle, and the plane's, taken while ready and kept: after the fence
     * a write through either is {@code unavailable}, not {@code held} (SPEC §13.18, §13.1 (a); that
     * nothing is read or written then is HostRacesBrokerTest's).
     */
    @Test
    void aHostHandleKeptFromBeforeAFenceAnswersWritesUnavailable(NatsBrokers brokers) throws Exception {
        NatsBroker nats = broker(brokers);
        SpaceProvisioning.forSpace(auth, callout).write(store);
        try (AuthService service = AuthService.open(plane(nats).serviceEndpoints(ServiceEndpoints.normal()).build(),
                service().build())) {
            IdpPin pin = IdpPin.pin(stateDir, "https://idp.example");
            Owner owner = service.plane().deriveOwner(pin.issuer(), "alice");
            service.plane().ledger().grantActor(Principal.of(owner.value(), "laptop"), Grant.of(List.of(), List.of(), List.of()));
            Granter granter = new Granter.Owner(owner.value(), "laptop");
            ServiceEndpointHost kept = service.serviceEndpoints().orElseThrow();
            ServiceEndpointHost planes = service.plane().serviceEndpoints().orElseThrow();
            assertEquals(HostResult.Status.PENDING, kept.admit(granter, new HostRequest.Register("req-kept-00000000001",
                    "weather", IID, "sha256:" + "c".repeat(64), List.of("ask"))).status(), "the service's handle serves");

            fence(nats);
            service.unavailable().get(10, java.util.concurrent.TimeUnit.SECONDS);
            HostRequest.Decide decide = new HostRequest.Decide("req-kept-00000000002", "weather", IID,
                    HostRequest.Decision.APPROVE);
            for (ServiceEndpointHost handle : List.of(kept, planes)) {
                CotalException write = assertThrows(CotalException.class, () -> handle.serve(granter, decide));
                assertEquals(ErrorCode.UNAVAILABLE, write.code(), write.getMessage());
                CotalException admit = assertThrows(CotalException.class, () -> handle.admit(granter,
                        new HostRequest.Register("req-kept-00000000003", "weather", "bcdefghijklmnopqrstuvwxyza",
                                "sha256:" + "d".repeat(64), List.of("ask"))));
                assertEquals(ErrorCode.UNAVAILABLE, admit.code(), admit.getMessage());
            }
        }
    }

    @Test
    void theServiceHostsTheRoutesAndRefusesOnceUnavailable(NatsBrokers brokers) throws Exception {
        NatsBroker nats = broker(brokers);
        SpaceProvisioning.forSpace(auth, callout).write(store);
        try (AuthService service = AuthService.open(plane(nats).serviceEndpoints(ServiceEndpoints.normal()).build(),
                service().build())) {
            assertEquals(AuthService.State.READY, service.state());
            assertTrue(Files.exists(stateDir.resolve(TokenExchange.DISCOVERY_FILE)), "the readiness file is written last");
            IdpPin pin = IdpPin.pin(stateDir, "https://idp.example");
            Owner owner = service.plane().deriveOwner(pin.issuer(), "alice");
            store.delete(SecretKeys.ownerSecretKey("alpha")); // a store emptied under a running service
            assertEquals(owner, service.plane().deriveOwner(pin.issuer(), "alice"), "the owner secret was loaded once");
            assertTrue(store.get(SecretKeys.ownerSecretKey("alpha")).isEmpty(), "a running service never creates it");
            service.plane().ledger().grantActor(Principal.of(owner.value(), "laptop"), Grant.of(List.of(), List.of(), List.of()));
            Granter granter = new Granter.Owner(owner.value(), "laptop");
            ServiceEndpointHost host = service.plane().serviceEndpoints().orElseThrow();
            HostResult pending = host.admit(granter, new HostRequest.Register(
                    "req-service-0000000001", "weather", IID, "sha256:" + "c".repeat(64), List.of("ask")));
            assertEquals(HostResult.Status.PENDING, pending.status());
            assertEquals(HostResult.Status.COMPLETED, host.serve(granter, new HostRequest.Decide(
                    "req-service-0000000002", "weather", IID, HostRequest.Decision.APPROVE)).status());

            service.close();
            assertEquals(AuthService.State.CLOSED, service.state());
            assertFalse(Files.exists(stateDir.resolve(TokenExchange.DISCOVERY_FILE)), "a closed service leaves no capability file");
            CotalException closed = assertThrows(CotalException.class, () -> service.plane().serviceEndpoints()
                    .orElseThrow().serve(granter, new HostRequest.NameRead("forecast")));
            assertEquals(ErrorCode.UNAVAILABLE, closed.code());
            assertTrue(closed.getMessage().contains("not ready"), closed.getMessage());
        }
    }
}
