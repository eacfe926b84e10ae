package ai.cotal.auth.internal.connect;

import ai.cotal.auth.PlaneConnection;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.connect.NatsConnector;
import ai.cotal.core.internal.connect.ConnectionEvents;
import ai.cotal.core.internal.connect.SelfSignedCredential;
import ai.cotal.core.jwt.ClaimSet;
import ai.cotal.core.jwt.NatsJwt;
import ai.cotal.core.jwt.Permission;
import ai.cotal.core.jwt.UserClaim;
import ai.cotal.core.keys.KeyType;
import ai.cotal.core.keys.NKeyPair;
import ai.cotal.core.trust.SpaceSigner;
import io.nats.client.Connection;
import io.nats.client.api.ServerInfo;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javax.net.ssl.SSLContext;

/**
 * One of the plane's own data-account connections. It signs its own user JWT with the space's
 * signing key for a fresh nkey, so it never passes through the auth callout it serves. Standing
 * connections carry {@code exp = now + ttl}, are re-signed at half-life (the newest JWT is
 * presented on every reconnect) and reconnect forever; a renewal the signer cannot answer now
 * ({@code unavailable}) is tried again every second until the current JWT expires, and any other
 * failed renewal closes the connection at once. Plane candidates (the scanners) carry no {@code exp}, never reconnect, and report their
 * end through {@link #gone()}. Thread-safe.
 */
public final class AuthorityConnection implements AutoCloseable {
    /** Where a plane candidate stands on the broker: the server's id and name, its client id and the user key. */
    public record Tuple(String serverId, String serverName, long cid, String userNkey) {
    }

    /** How soon a renewal the signer could not answer is tried again. */
    private static final Duration RETRY = Duration.ofSeconds(1);

    private final AuthorityRole role;
    private final String space;
    private final NKeyPair identity;
    private final Connection connection;
    private final CompletableFuture<String> gone = new CompletableFuture<>();
    private final CompletableFuture<Void> reconnected = new CompletableFuture<>();
    private final ai.cotal.core.internal.connect.ConnectedWait online;
    private volatile ScheduledFuture<?> renewalTask;
    private volatile String jwt;
    private volatile long expiresAt;
    private volatile boolean closing;
    private volatile Runnable turnover = () -> { };

    private AuthorityConnection(AuthorityRole role, String space, NKeyPair identity, String jwt, Connection connection) {
        this.role = role;
        this.space = space;
        this.identity = identity;
        this.jwt = jwt;
        this.connection = connection;
        this.online = ai.cotal.core.internal.connect.ConnectedWait.on(connection);
    }

    /**
     * Opens a connection of {@code role}.
     *
     * @param ttl        the standing JWT lifetime (ignored for plane candidates)
     * @param onFailure  called once when a renewal fails (the connection is closed first)
     */
    public static AuthorityConnection open(List<String> servers, SpaceSigner signer, AuthorityRole role, Duration ttl,
            Clock clock, ScheduledExecutorService scheduler, SSLContext ssl, Consumer<String> onFailure) {
        NKeyPair identity = NKeyPair.create(KeyType.USER);
        Holder holder = new Holder();
        Signed first = sign(signer, role, identity, role.planeCandidate() ? null : ttl, clock);
        holder.jwt = first.jwt();
        NatsConnector.Builder connector = NatsConnector.builder().servers(servers)
                .selfSigned(new SelfSignedCredential(identity, () -> holder.jwt)).label(role.connectionName(signer.space()))
                .timeout(Duration.ofSeconds(5)).connectionListener(holder).sslContext(ssl);
        if (role.reconnects()) {
            connector.maxReconnects(-1).reconnectWait(Duration.ofMillis(250));
        }
        Connection connection = connector.build().connect();
        AuthorityConnection result = new AuthorityConnection(role, signer.space(), identity, holder.jwt, connection);
        holder.owner = result;
        if (connection.getStatus() != Connection.Status.CONNECTED) {
            result.gone.complete(role.connectionName(signer.space()) + " lost its broker connection while opening");
        }
        if (!role.planeCandidate()) {
            result.expiresAt = first.exp();
            result.scheduleRenewal(new Renewal(holder, signer, ttl, clock, scheduler, onFailure),
                    Math.max(1, ttl.toMillis() / 2));
        }
        if (role.planeCandidate() && (connection.getServerInfo().getServerId() == null
                || connection.getServerInfo().getClientId() <= 0)) {
            result.close();
            throw new CotalException(ErrorCode.UNAVAILABLE, role.connectionName(signer.space())
                    + ": the broker's INFO has no server id or client id");
        }
        return result;
    }

    /** What a standing connection's renewal needs. */
    private record Renewal(Holder holder, SpaceSigner signer, Duration ttl, Clock clock, ScheduledExecutorService scheduler,
            Consumer<String> onFailure) {
    }

    private void scheduleRenewal(Renewal r, long delayMillis) {
        if (!closing) {
            renewalTask = r.scheduler().schedule(() -> renew(r), delayMillis, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Re-signs at half-life. A signer that is unavailable (a remote signer that is down, SPEC
     * §16.4) is asked again every second while the current JWT is still good; any other failure,
     * or one still failing at the expiry, closes the connection and reports it.
     */
    private void renew(Renewal r) {
        long half = Math.max(1, r.ttl().toMillis() / 2);
        try {
            Signed renewed = sign(r.signer(), role, identity, r.ttl(), r.clock());
            r.holder().jwt = renewed.jwt();
            jwt = renewed.jwt();
            expiresAt = renewed.exp();
            scheduleRenewal(r, half);
        } catch (CotalException e) {
            if (e.code() == ErrorCode.UNAVAILABLE && r.clock().instant().getEpochSecond() + 1 < expiresAt) {
                scheduleRenewal(r, Math.min(half, RETRY.toMillis()));
                return;
            }
            fail(r, e);
        } catch (RuntimeException e) {
            fail(r, e);
        }
    }

    private void fail(Renewal r, RuntimeException e) {
        String why = role.connectionName(space) + ": renewing its credential failed; closed (" + e.getMessage() + ")";
        close();
        r.onFailure().accept(why);
    }

    /** A signed JWT and its {@code exp} (0 without one). */
    private record Signed(String jwt, long exp) {
    }

    private static Signed sign(SpaceSigner signer, AuthorityRole role, NKeyPair identity, Duration ttl, Clock clock) {
        Permission sub = role.subscribe(signer.space(), identity.publicKey());
        UserClaim body = new UserClaim(role.publish(signer.space()), sub, role.response(), null, null, null, -1L, -1L,
                -1L, null, null, null, signer.accountPublicKey(), null);
        ClaimSet<UserClaim> claims = ClaimSet.of(identity.publicKey(), role.connectionName(signer.space()), body,
                clock.instant());
        long exp = 0;
        if (ttl != null) {
            exp = clock.instant().plus(ttl).getEpochSecond();
            claims = claims.withExp(exp);
        }
        return new Signed(NatsJwt.encode(claims, signer.signing()), exp);
    }

    /**
     * The watch on this connection's state: a standing connection is dropped by the broker at each
     * JWT expiry and comes back at once with the renewed one; operations wait that out with it.
     */
    public ai.cotal.core.internal.connect.ConnectedWait online() {
        return online;
    }

    public Connection connection() {
        return connection;
    }

    public AuthorityRole role() {
        return role;
    }

    /** This candidate's place on the broker. */
    public Tuple tuple() {
        ServerInfo info = connection.getServerInfo();
        String name = info.getServerName() == null || info.getServerName().isEmpty() ? info.getServerId()
                : info.getServerName(); // a server without server_name is named by its id
        return new Tuple(info.getServerId(), name, info.getClientId(), identity.publicKey());
    }

    /**
     * Where this connection stands now, with no secret in it: role, name, status and, while
     * connected, the server id and cid of the broker's INFO.
     */
    public PlaneConnection view() {
        PlaneConnection.Status status = switch (connection.getStatus()) {
            case CONNECTED -> PlaneConnection.Status.CONNECTED;
            case CONNECTING, RECONNECTING -> PlaneConnection.Status.RECONNECTING;
            case DISCONNECTED -> PlaneConnection.Status.DISCONNECTED;
            case CLOSED -> PlaneConnection.Status.CLOSED;
        };
        ServerInfo info = connection.getServerInfo();
        boolean known = status == PlaneConnection.Status.CONNECTED && info != null && info.getServerId() != null
                && info.getClientId() > 0;
        return new PlaneConnection(role.view(), role.connectionName(space), status,
                known ? Optional.of(info.getServerId()) : Optional.empty(),
                known ? OptionalLong.of(info.getClientId()) : OptionalLong.empty());
    }

    /** Completes with a reason when the connection is lost (for candidates: closed or disconnected). */
    public CompletableFuture<String> gone() {
        return gone;
    }

    /** Completes at the first reconnect (a standing connection's JWT expired or the broker came back). */
    public CompletableFuture<Void> reconnected() {
        return reconnected;
    }

    /** Runs {@code hook} at every reconnect from now on (a turnover: the metrics count it, SPEC §13.21). */
    public void onTurnover(Runnable hook) {
        this.turnover = hook;
    }

    /** The JWT presented on the next (re)connect. */
    public String currentJwt() {
        return jwt;
    }

    /** Closes the connection; waits for it. A deliberate close is not reported as a loss. */
    @Override
    public void close() {
        closing = true;
        ScheduledFuture<?> task = renewalTask;
        if (task != null) {
            task.cancel(false);
        }
        try {
            connection.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    boolean closing() {
        return closing;
    }

    /** Holds the newest JWT (presented on every (re)connect) and watches the connection's events. */
    private static final class Holder implements ConnectionEvents {
        volatile String jwt;
        volatile AuthorityConnection owner;


        @Override
        public void connectionEvent(Connection conn, Events type, Long time, String uriDetails) {
            AuthorityConnection self = owner;
            if (self == null || self.closing) {
                return;
            }
            if (type == Events.RECONNECTED) {
                self.reconnected.complete(null);
                self.turnover.run();
            }
            boolean lost = type == Events.CLOSED || (self.role.planeCandidate() && type == Events.DISCONNECTED);
            if (lost) {
                self.gone.complete(self.role.connectionName(self.space) + " lost its broker connection (" + type + ")");
            }
        }
    }
}
