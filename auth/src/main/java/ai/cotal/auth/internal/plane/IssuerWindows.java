package ai.cotal.auth.internal.plane;

import ai.cotal.auth.AuthPlaneOptions;
import ai.cotal.auth.internal.connect.AuthorityConnection;
import ai.cotal.auth.internal.connect.AuthorityRole;
import ai.cotal.auth.internal.run.IssuerWindow;
import ai.cotal.core.issued.IssuedAuthority;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

/**
 * Opens the plane's issuer windows (SPEC §14.7): each one a fresh connection of role
 * {@link AuthorityRole#ISSUER_WINDOW} (the issuer's store grants, its own inbox, no reconnect,
 * a JWT of {@link #TTL}), the issued stores bound on it (for the caller's resolve and the attempt's
 * issuance) and the composed source check reading through it, which both use. Thread-safe; every window is the caller's to close.
 */
final class IssuerWindows implements Supplier<IssuerWindow> {
    /** The window's JWT lifetime: longer than any one attempt, never renewed in practice. */
    static final Duration TTL = Duration.ofMinutes(1);
    private final AuthPlaneOptions options;
    private final ai.cotal.auth.internal.ledger.LedgerBackend ledger;
    private final ScheduledExecutorService scheduler;

    IssuerWindows(AuthPlaneOptions options, ai.cotal.auth.internal.ledger.LedgerBackend ledger, ScheduledExecutorService scheduler) {
        this.options = options;
        this.ledger = ledger;
        this.scheduler = scheduler;
    }

    @Override
    public IssuerWindow get() {
        AuthorityConnection connection = AuthorityConnection.open(options.servers(), options.signer(),
                AuthorityRole.ISSUER_WINDOW, TTL, options.clock(), scheduler, options.sslContext().orElse(null),
                why -> { }); // a window outliving its JWT is closed by the broker: its attempt fails unavailable
        try {
            PlaneSourceLiveness sources = new PlaneSourceLiveness(options.space(), ledger, connection.connection());
            IssuedAuthority issued = IssuedAuthority.bind(connection.connection(), options.space(), sources,
                    options.clock());
            return new IssuerWindow(issued, sources, connection::close);
        } catch (RuntimeException e) {
            connection.close();
            throw e;
        }
    }
}
