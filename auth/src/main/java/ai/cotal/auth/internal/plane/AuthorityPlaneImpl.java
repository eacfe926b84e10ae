package ai.cotal.auth.internal.plane;

import ai.cotal.auth.internal.metrics.AuthMetrics;
import ai.cotal.auth.internal.secrets.OwnerSecret;
import ai.cotal.auth.PlaneHealth;
import ai.cotal.auth.internal.connect.AuthorityConnection;
import ai.cotal.auth.internal.connect.AuthorityRole;
import ai.cotal.auth.internal.endpoint.ServiceEndpointAdmissionKey;
import ai.cotal.auth.internal.manager.AdminListener;
import ai.cotal.auth.internal.manager.ManagerGates;
import ai.cotal.auth.internal.manager.PlaneRegistrar;
import ai.cotal.auth.internal.manager.RestartIdentity;
import ai.cotal.auth.internal.manager.ServingRecords;
import ai.cotal.auth.internal.run.ObservedRunRequests;
import ai.cotal.auth.internal.run.PlaneManagerRuns;
import ai.cotal.auth.ActorLedger;
import ai.cotal.auth.AuthAuthorityPlane;
import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.Bearers;
import ai.cotal.auth.ConnectCredentials;
import ai.cotal.auth.IdpPin;
import ai.cotal.auth.IssuedCallers;
import ai.cotal.auth.LivenessOracle;
import ai.cotal.auth.Owners;
import ai.cotal.auth.PlaneClaimRefusal;
import ai.cotal.auth.PlaneConnection;
import ai.cotal.auth.ServiceEndpointHost;
import ai.cotal.auth.SpaceProvisioning;
import ai.cotal.auth.internal.callout.AuthCallout;
import ai.cotal.auth.internal.callout.CalloutAuthority;
import ai.cotal.auth.internal.endpoint.ServiceEndpointEngine;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.id.Owner;
import ai.cotal.core.internal.kv.RowStore;
import ai.cotal.core.stores.SpaceStores;
import ai.cotal.core.internal.kv.StoreNames;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The authority plane (SPEC §13.12-§13.14). See {@link AuthAuthorityPlane}. */
public final class AuthorityPlaneImpl implements AuthAuthorityPlane {
    private static final Logger LOG = LoggerFactory.getLogger(AuthorityPlaneImpl.class);

    private final AuthPlaneOptions options;
    private final String space;
    private final ScheduledExecutorService scheduler;
    private final AuthorityConnection writer;
    private final AuthorityConnection reader;
    private final AuthorityConnection barrier;
    private final AuthorityConnection issuerConnection;
    private final AuthorityConnection ledgerScanner;
    private final AuthorityConnection recordsScanner;
    private final PlaneClaim claim;
    private final PlacedLedger ledger;
    private final PlaneCredentials credentials;
    private final Bearers bearers;
    private final IssuedCallers issuedCallers;
    private final CalloutAuthority calloutAuthority;
    private final byte[] ownerSecret; // loaded once at open: a store emptied later never re-keys an owner
    private final AuthorityConnection discovery;
    private final ServiceEndpointEngine endpoints;
    private final ServiceEndpointHost host;
    private final PlaneLifecycles lifecycles;
    private final LifecycleRetirement retirement;
    private final ServingRecords serving;
    private final ManagerGates managers;
    private final ObservedRunRequests observedRuns;
    private final PlaneManagerRuns runs;
    private volatile PlaneRegistrar registrar; // set by the open's registration step (SPEC §14.2)
    private volatile AuthorityConnection adminConnection; // the admin listener's, opened last (SPEC §14.1)
    private volatile AdminListener admin;
    private volatile AuthCallout responder; // the plane's own callout responder, started last, closed first
    private final CompletableFuture<String> fenced = new CompletableFuture<>();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private volatile boolean closing;
    private volatile boolean readersClosed;
    private final StorePressure pressure;
    private volatile AuthMetrics.Registration gauges = () -> { };

    private AuthorityPlaneImpl(AuthPlaneOptions options, ScheduledExecutorService scheduler, AuthorityConnection writer,
            AuthorityConnection reader, AuthorityConnection barrier, AuthorityConnection issuerConnection,
            AuthorityConnection ledgerScanner,
            AuthorityConnection recordsScanner, PlaneClaim claim, BearerIssuer issuer, AuthorityConnection discovery,
            AuthMetrics metrics, PlacedLedger ledger, boolean fenceCredentials) {
        this.options = options;
        this.space = options.space();
        this.scheduler = scheduler;
        this.writer = writer;
        this.reader = reader;
        this.barrier = barrier;
        this.issuerConnection = issuerConnection;
        this.ledgerScanner = ledgerScanner;
        this.recordsScanner = recordsScanner;
        this.claim = claim;
        this.ownerSecret = OwnerSecret.load(options.secretStore(), space);
        this.ledger = ledger;
        WriteBudget budget = WriteBudget.forPlane(options, writer.connection(), metrics);
        this.pressure = budget.pressure();
        PlaneCredentials planeCredentials = new PlaneCredentials(this::refuseIfUnavailable, space, ledger,
                fenceCredentials ? new CredentialRows(space, writer.connection(), reader, options.clock(),
                        PlaneFences.writes(StoreNames.bucket("auth", space), writer, reader, claim))
                        : new CredentialRows(space, writer.connection(), reader, options.clock()),
                budget, claim, ledgerScanner);
        this.credentials = planeCredentials;
        this.bearers = new PlaneBearers(this::refuseIfUnavailable, issuer,
                new BearerVerifier(space, issuer.publicKey(), options.clock()));
        this.issuedCallers = new PlaneIssuedCallers(this::refuseIfUnavailable,
                new IssuedCallerRows(space, issuerConnection.connection(), ledger, options.clock(), budget));
        this.discovery = discovery;
        this.endpoints = discovery == null ? null : new ServiceEndpointEngine(new ServiceEndpointEngine.Wiring(
                options.servers(), options.signer(), options.sslContext().orElse(null), StoreNames.bucket("auth", space),
                options.clock(), ledger, discovery, claim::beginCheck, fenced::isDone,
                (owner, actor) -> budget.charge(WriteBudget.Kind.ENDPOINT, owner, actor)));
        LiveConnectionRegister live = new LiveConnectionRegister(options.clock());
        SSLContext ssl = options.sslContext().orElse(null);
        ConnectionEvictor evictor = new ConnectionEvictor(options.servers(), space, options.secretStore(), ssl);
        LifecycleConnections lifecycleConnections = new LifecycleConnections(options.clock());
        LifecycleRows lifecycleRows = new LifecycleRows(new RowStore(barrier.connection(), StoreNames.bucket("auth", space)));
        ConnectionSweep sweep = new ConnectionSweep(options.servers(), space, options.signer().accountPublicKey(),
                options.secretStore(), ssl);
        this.retirement = new LifecycleRetirement(space, lifecycleRows, ledger, planeCredentials::revokeLifecycle,
                lifecycleConnections, sweep, evictor, options.clock());
        this.lifecycles = new PlaneLifecycles(this::refuseIfUnavailable, ledger, lifecycleRows, retirement,
                options.clock());
        planeCredentials.lifecycles(lifecycles);
        this.serving = new ServingRecords(space, writer.connection(), reader.connection(),
                PlaneFences.writes(StoreNames.bucket("auth", space), writer, reader, claim),
                PlaneFences.writes(StoreNames.bucket("records", space), writer, reader, claim));
        this.managers = new ManagerGates(new ManagerGates.Wiring(space, options.signer(), serving, ledger, options.clock(),
                this::refuseIfUnavailable, () -> registrar.observe(), planeCredentials::scan, options.managerStandingTtl()));
        this.observedRuns = new ObservedRunRequests(issuerConnection.connection(), space, options.clock(),
                ObservedRunRequests.Bounds.PLANE, scheduler); // before the plane is returned (SPEC §14.8)
        this.runs = new PlaneManagerRuns(new PlaneManagerRuns.Wiring(space, options.signer(),
                new RowStore(writer.connection(), StoreNames.bucket("admission", space)),
                new RowStore(reader.connection(), StoreNames.bucket("records", space)), managers, ledger,
                new PlaneSourceLiveness(space, ledger, issuerConnection.connection()), observedRuns,
                new IssuerWindows(options, ledger, scheduler), options.clock(), this::refuseIfUnavailable));
        this.calloutAuthority = new PlaneCalloutAuthority(space, bearers, credentials, issuedCallers,
                endpoints == null ? null : endpoints.connects(), live, lifecycleConnections, managers, fenced);
        this.host = endpoints == null ? null : new PlaneEndpointHost(endpoints, this::refuseIfClosing,
                new RevokedConnections(live, sweep, evictor), metrics);
    }

    /** The boot order of SPEC §13.12; any failure unwinds in reverse and throws. Credential rows are written unfenced. */
    public static AuthAuthorityPlane open(AuthPlaneOptions options) {
        return open(options, false);
    }

    /**
     * As {@link #open(AuthPlaneOptions)}; with {@code fenceCredentials} every credential mint,
     * strict retry and revoke is a fenced write (SPEC §13.13 "Fenced writes"), which the lease
     * takeover needs and the proof takeover does not: a fenced mint costs an atomic batch.
     */
    public static AuthAuthorityPlane open(AuthPlaneOptions options, boolean fenceCredentials) {
        String space = options.space();
        // before any connection: every secret provisioning writes for a plane, all named at once
        SpaceProvisioning.require(options.secretStore(), space, SpaceProvisioning.Role.PLANE);
        // an observer of another account would sweep another space's connections
        ConnectionSweep.requireObserverOf(options.secretStore(), space, options.signer().accountPublicKey());
        AuthMetrics metrics = AuthMetrics.of(
                options.settings());
        PlaneOpening opening = new PlaneOpening(options, metrics);
        ScheduledExecutorService scheduler = opening.scheduler();
        try {
            // every connection opens at once; the stores are set up on the writer while the others connect
            PlaneOpening.Together connects = opening.connectTogether(PlaneOpening.roles(options.serviceEndpoints()
                    .isPresent()));
            AuthorityConnection writer = connects.get(AuthorityRole.WRITER);
            SpaceStores.setupAuthority(writer.connection(), space, options.storeReplicas());
            connects.all();
            AuthorityConnection reader = connects.get(AuthorityRole.READER);
            AuthorityConnection barrier = connects.get(AuthorityRole.BARRIER);
            AuthorityConnection issuerConnection = connects.get(AuthorityRole.ISSUER);
            AuthorityConnection discovery = options.serviceEndpoints().isPresent()
                    ? connects.get(AuthorityRole.DISCOVERY) : null;
            AuthorityConnection ledgerScanner = connects.get(AuthorityRole.LEDGER_SCANNER);
            AuthorityConnection recordsScanner = connects.get(AuthorityRole.RECORDS_SCANNER);
            LivenessOracle oracle = options.livenessOracle().orElseGet(() -> new ConnzLivenessOracle(options.servers(),
                    space, options.signer().accountPublicKey(), options.secretStore(), Duration.ofSeconds(5)));
            PlaneClaim claim = PlaneClaim.acquire(space, new RowStore(barrier.connection(), StoreNames.bucket("auth", space)),
                    barrier.connection(), PlaneOpening.tuple(ledgerScanner), PlaneOpening.tuple(recordsScanner), oracle,
                    options.clock());
            opening.releaseAfterScanners(claim);
            // before any read a decision rests on: the other fenced stores carry this generation (SPEC §13.13)
            claim.stampStores(new RowStore(reader.connection(), StoreNames.bucket("records", space)),
                    new RowStore(writer.connection(), StoreNames.bucket("admission", space)), writer.connection());
            String startupRefusal = options.serviceEndpointsRefusal();
            if (startupRefusal != null) {
                throw new CotalException(ErrorCode.FAILED_PRECONDITION, "the authority plane of space \"" + space
                        + "\" refused to open: " + startupRefusal);
            }
            // after the claim, before the issuer key (SPEC §13.23): the markers and the option settle the placement
            PlacedLedger ledger = new PlacedLedger(LedgerPlacementOpen.open(space, options.ledger(), options.stateDir(),
                    writer.connection(), reader.connection(), options.clock()));
            BearerIssuer issuer = BearerIssuer.load(options.secretStore(), space, options.clock());
            PlaneOpening.requireLive(space, ledgerScanner, recordsScanner); // the claim holds only while both scanners do
            AuthorityPlaneImpl plane = new AuthorityPlaneImpl(options, scheduler, writer, reader, barrier, issuerConnection,
                    ledgerScanner,
                    recordsScanner, claim, issuer, discovery, metrics, ledger, fenceCredentials);
            claim.fenceMoved().thenAccept(plane::fence); // a fenced write found a later plane's fence (SPEC §13.13)
            ledgerScanner.gone().thenAccept(plane::fence);
            recordsScanner.gone().thenAccept(plane::fence);
            opening.renewalFailure().thenAccept(plane::fence);
            // the host only: it stays unavailable until the plane is opened again; the plane stays up
            opening.discoveryFailure().thenAccept(why -> plane.endpoints.discoveryClosed(why));
            if (discovery != null) { // last: an open that fails before here leaves admission as it was
                ServiceEndpointAdmissionKey.open(writer.connection(), space, claim.generation(), options.clock().instant());
            }
            if (plane.fenced.isDone()) {
                throw new CotalException(ErrorCode.UNAVAILABLE, "the authority plane of space \"" + space
                        + "\" lost a scanner while opening; retry");
            }
            try {
                // after the claim: an open refused live-peer must not advance the epoch (SPEC §14.2)
                plane.registrar = PlaneRegistrar.register(space, options.identityRoot()
                        .map(root -> RestartIdentity.loadOrCreate(root, space))
                        .orElseGet(() -> RestartIdentity.fromStore(options.secretStore(), space, options.stateDir())),
                        plane.serving, options.clock(), plane::fence);
                plane.resumeRetirements(); // before anything is served: a corrupt intent store fails the open
                // the retire rail, last: no request is taken before the resume finished (SPEC §14.1)
                plane.adminConnection = connects.get(AuthorityRole.ADMIN);
                plane.admin = AdminListener.open(plane.adminConnection, space, plane.managers, plane.serving,
                        plane.lifecycles, plane::refuseIfUnavailable);
                if (options.callout().isPresent()) { // last: it answers connects only from a plane that serves
                    plane.responder = PlaneResponder.start(options, plane.calloutAuthority);
                }
            } catch (RuntimeException e) {
                plane.closing = true; // the unwind closes the scanners: that is no fault to fence on
                throw e;
            }
            plane.gauges = metrics.planeGauges(plane::health); // left in finish()
            LOG.info("auth-plane: space {} opened with plane claim generation {}", space, claim.generation());
            return plane;
        } catch (RuntimeException e) {
            opening.unwind(e);
            throw e;
        }
    }

    /** The boot crash-resume (SPEC §14.1), over a sealed scan of the retirement ops. */
    private void resumeRetirements() {
        lifecycles.resumed(retirement.resumeAtOpen(() -> credentials.scan(LifecycleRows.OP)));
    }

    /** The retirement executor, for tests in this package (its step hooks). */
    LifecycleRetirement lifecycleRetirement() {
        return retirement;
    }

    /** The fatal latch: the first loss wins; a deliberate close never fences. */
    private void fence(String why) {
        if (closing) {
            if (endpoints != null) {
                endpoints.trip(why); // trips the host even while closing, without making the plane fatal
            }
            return;
        }
        synchronized (fenced) {
            if (fenced.isDone()) {
                return;
            }
            claim.fence();
            String copy = "the auth service for space \"" + space + "\" stopped serving: " + why
                    + "; it must be opened again";
            LOG.error("auth-plane: {}", copy);
            fenced.complete(copy);
        }
        ledgerScanner.close();
        recordsScanner.close();
    }

    /** New host calls are refused once closing; a fenced plane's engine refuses them itself ({@code unavailable}). */
    private void refuseIfClosing() {
        if (closing) {
            refuseIfUnavailable();
        }
    }

    private void refuseIfUnavailable() {
        if (fenced.isDone() || closing) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "the auth service for space \"" + space + "\" is momentarily"
                    + " unavailable (it detected a fault and is restarting); retry shortly");
        }
    }

    @Override
    public String space() {
        return space;
    }

    @Override
    public AuthPlaneOptions options() {
        return options;
    }

    @Override
    public ClaimInfo claim() {
        return new ClaimInfo(claim.generation(), claim.claimId());
    }

    @Override
    public ConnectCredentials credentials() {
        return credentials;
    }

    @Override
    public Bearers bearers() {
        return bearers;
    }

    @Override
    public IssuedCallers issuedCallers() {
        return issuedCallers;
    }

    /** What the auth callout asks this plane (its own responder's authority; tests start responders on it). */
    public CalloutAuthority calloutAuthority() {
        return calloutAuthority;
    }

    @Override
    public Optional<ServiceEndpointHost> serviceEndpoints() {
        return Optional.ofNullable(host);
    }

    @Override
    public ai.cotal.auth.Lifecycles lifecycles() {
        return lifecycles;
    }

    @Override
    public ai.cotal.auth.ManagerAuthority managers() {
        return managers;
    }

    @Override
    public ai.cotal.auth.ManagerRuns managerRuns() {
        return runs;
    }

    @Override
    public ai.cotal.auth.PlaneRegistration registration() {
        return registrar.registration();
    }

    @Override
    public ai.cotal.auth.PlaneRegistration observeRegistration() {
        refuseIfUnavailable();
        return registrar.observe();
    }

    @Override
    public ActorLedger ledger() {
        refuseIfUnavailable();
        return ledger;
    }

    @Override
    public Optional<IdpPin> idpPin() {
        refuseIfUnavailable();
        return ledger.idpPin();
    }

    @Override
    public IdpPin pinIdp(String url) {
        refuseIfUnavailable();
        return ledger.pinStock(url);
    }

    @Override
    public IdpPin pinIdpOidc(String issuer, String clientId, java.util.List<String> algorithms) {
        refuseIfUnavailable();
        return ledger.pinOidc(issuer, clientId, algorithms);
    }

    @Override
    public Owner deriveOwner(String issuerName, String subject) {
        refuseIfUnavailable();
        return Owners.deriveOwnerForIdpSubject(ownerSecret, issuerName, subject);
    }

    /** The engine, for tests in this module; null when service endpoints are off. */
    public ServiceEndpointEngine serviceEndpointEngine() {
        return endpoints;
    }

    @Override
    public CompletableFuture<String> fenced() {
        return fenced.copy();
    }

    @Override
    public CompletableFuture<Void> closed() {
        return closed.copy();
    }

    @Override
    public List<PlaneConnection> connections() {
        List<PlaneConnection> views = new ArrayList<>();
        for (AuthorityConnection connection : new AuthorityConnection[] {writer, reader, barrier, issuerConnection,
                discovery, ledgerScanner, recordsScanner, adminConnection}) {
            if (connection != null) {
                views.add(connection.view());
            }
        }
        return List.copyOf(views);
    }

    @Override
    public PlaneHealth health() {
        PlaneHealth.State state = closed.isDone() ? PlaneHealth.State.CLOSED : fenced.isDone() ? PlaneHealth.State.FENCED
                : closing ? PlaneHealth.State.CLOSING : PlaneHealth.State.OPEN;
        return StoreReadings.health(space, state, Optional.ofNullable(fenced.getNow(null)), connections(), pressure,
                scheduler, Optional.ofNullable(responder).map(PlaneResponder::health), ledger.placement().word());
    }

    @Override
    public synchronized void close() {
        if (closed.isDone()) {
            return;
        }
        closing = true;
        if (!readersClosed) {
            if (responder != null) {
                responder.close(); // first: the queue group's other responders answer from here on
            }
            if (admin != null) {
                admin.close(); // first: no retire request is taken from here on
            }
            if (endpoints != null) {
                endpoints.close(); // throws while an effect connection stays open: the claim stays held
                discovery.close();
            }
            observedRuns.close();
            reader.close();
            ledgerScanner.close();
            recordsScanner.close();
            readersClosed = true;
        }
        try {
            claim.release();
        } catch (PlaneClaimRefusal e) {
            if (e.reason() == PlaneClaimRefusal.Reason.RELEASE_UNREACHABLE) {
                throw e; // keep the barrier and the claim: close() may be called again
            }
            finish();
            throw e;
        }
        finish();
    }

    private void finish() {
        barrier.close();
        issuerConnection.close();
        writer.close();
        scheduler.shutdownNow();
        gauges.close();
        LOG.info("auth-plane: space {} closed", space);
        closed.complete(null);
    }
}
