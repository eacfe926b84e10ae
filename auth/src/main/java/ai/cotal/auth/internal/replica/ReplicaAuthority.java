package ai.cotal.auth.internal.replica;

import ai.cotal.core.trust.CalloutAuth;
import ai.cotal.auth.metrics.MeterSink;
import ai.cotal.auth.internal.callout.CalloutOptions;
import ai.cotal.auth.internal.callout.AuthCallout;
import ai.cotal.auth.internal.connect.AuthorityConnection;
import ai.cotal.auth.internal.connect.AuthorityRole;
import ai.cotal.auth.internal.plane.BearerVerifier;
import ai.cotal.auth.internal.plane.CredentialRows;
import ai.cotal.auth.internal.plane.FileActorLedger;
import ai.cotal.auth.internal.plane.IssuedCallerRows;
import ai.cotal.auth.internal.plane.WriteBudget;
import ai.cotal.auth.internal.secrets.IssuerKey;
import ai.cotal.auth.ActorLedger;
import ai.cotal.auth.ActorRow;
import ai.cotal.auth.BearerClaims;
import ai.cotal.auth.internal.callout.CalloutAuthority;
import ai.cotal.auth.ConnectAttempt;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.issued.Ceiling;
import ai.cotal.core.secrets.SecretStore;
import ai.cotal.core.trust.SpaceSigner;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * A callout replica's authority for one space (SPEC §13.19): the same answers as the plane's
 * ({@link CalloutAuthority}) from the space's ledger directory, its credential rows (read on a
 * reader connection) and the issuer's public key, with issued callers written on an issuer
 * connection. It holds no plane claim and admits no service-endpoint connection (an
 * {@code endpoint-server} bearer is refused). A failed renewal makes it refuse with
 * {@code unavailable} from then on. Issuances are charged to a
 * {@link WriteBudget} of its own with the default limits (SPEC §13.20: replicas count on their own)
 * and the issued and accepted stores' pressure, read on the issuer connection. Thread-safe.
 */
public final class ReplicaAuthority implements CalloutAuthority, AutoCloseable {
    /** The bearer view of a service instance's serving connection, which only the plane admits. */

    private final String space;
    private final ScheduledExecutorService scheduler;
    private final AuthorityConnection reader;
    private final AuthorityConnection issuer;
    private final FileActorLedger ledger;
    private final CredentialRows credentials;
    private final BearerVerifier bearers;
    private final IssuedCallerRows issued;
    private volatile String failed;
    private final java.util.concurrent.CompletableFuture<String> failure = new java.util.concurrent.CompletableFuture<>();

    private ReplicaAuthority(String space, ScheduledExecutorService scheduler, AuthorityConnection reader,
            AuthorityConnection issuer, FileActorLedger ledger, BearerVerifier bearers, Clock clock) {
        this.space = space;
        this.scheduler = scheduler;
        this.reader = reader;
        this.issuer = issuer;
        this.ledger = ledger;
        this.credentials = new CredentialRows(space, reader.connection(), reader, clock);
        this.bearers = bearers;
        this.issued = new IssuedCallerRows(space, issuer.connection(), ledger, clock,
                WriteBudget.forReplica(space, issuer.connection(), clock));
    }

    /** Opens the reader and issuer connections of {@code signer}'s space. */
    public static ReplicaAuthority open(List<String> servers, SpaceSigner signer, Path stateDir, SecretStore store,
            Duration ttl, Clock clock) {
        String space = signer.space();
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "cotal-callout-replica-" + space);
            thread.setDaemon(true);
            return thread;
        });
        ReplicaAuthority[] self = new ReplicaAuthority[1];
        AuthorityConnection reader = null;
        AuthorityConnection issuer = null;
        try {
            reader = AuthorityConnection.open(servers, signer, AuthorityRole.READER, ttl, clock, scheduler, null,
                    why -> self[0].fail(why));
            issuer = AuthorityConnection.open(servers, signer, AuthorityRole.ISSUER, ttl, clock,
                    scheduler, null, why -> self[0].fail(why));
            BearerVerifier bearers = new BearerVerifier(space, IssuerKey.load(store, space, BearerClaims.issuerOf(space)).publicKey(),
                    clock);
            self[0] = new ReplicaAuthority(space, scheduler, reader, issuer, new FileActorLedger(stateDir, clock), bearers,
                    clock);
            return self[0];
        } catch (RuntimeException e) {
            if (issuer != null) {
                issuer.close();
            }
            if (reader != null) {
                reader.close();
            }
            scheduler.shutdownNow();
            throw e;
        }
    }

    private void fail(String why) {
        failed = why;
        failure.complete(why);
    }

    /** Completes when a connection failed to renew: the authority refuses from then on. */
    /**
     * Starts an auth-callout responder that answers from this replica with {@code callout}'s
     * material on {@code servers}, signing through {@code signer}, reporting to {@code sink}
     * (null: nothing is measured) with the space tag; answers its closer.
     */
    public Runnable answer(List<String> servers, CalloutAuth callout, SpaceSigner signer, Clock clock, MeterSink sink) {
        CalloutOptions.Builder options = CalloutOptions.builder().servers(servers).callout(callout).plane(this)
                .signer(signer).clock(clock);
        if (sink != null) {
            options.meterSink(sink).meterSpaceTag(true);
        }
        return AuthCallout.start(options.build())::close;
    }

    public java.util.concurrent.CompletableFuture<String> failure() {
        return failure;
    }

    /** Completes when a connection failed to renew: its responder leaves the queue group. */
    @Override
    public java.util.concurrent.CompletableFuture<String> stopped() {
        return failure.copy();
    }

    private void refuseIfFailed() {
        if (failed != null) {
            throw new CotalException(ErrorCode.UNAVAILABLE, "the callout replica of space \"" + space
                    + "\" stopped: " + failed);
        }
    }

    @Override
    public String space() {
        return space;
    }

    /**
     * Verifies the bearer. A serving ({@code endpoint-server}) bearer is refused afterwards by
     * {@link CalloutAuthority#endpointAccess}'s default, a replica's: a replica never issues a
     * service-endpoint connection, also for a space whose admission opened after its lane did.
     */
    @Override
    public BearerClaims verifyBearer(String token) {
        refuseIfFailed();
        return bearers.verify(token);
    }

    @Override
    public ActorRow authorizeConnect(ConnectAttempt attempt) {
        refuseIfFailed();
        return credentials.authorize(ledger, attempt);
    }

    @Override
    public Ceiling issueUserCaller(BearerClaims bearer, String connId, Ceiling ceiling) {
        refuseIfFailed();
        return issued.issue(bearer, connId, ceiling);
    }

    @Override
    public void close() {
        issuer.close();
        reader.close();
        scheduler.shutdownNow();
    }
}
