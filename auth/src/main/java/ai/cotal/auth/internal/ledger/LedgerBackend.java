package ai.cotal.auth.internal.ledger;

import ai.cotal.auth.ActorLedger;
import ai.cotal.auth.IdpPin;
import java.util.List;

/**
 * The plane's actor ledger in one placement (SPEC §13.23): the connect check's reads, the
 * {@link ActorLedger} writes and the IdP pins. Written by one plane at a time (the claim's).
 * Thread-safe.
 */
public interface LedgerBackend extends LedgerReads, ActorLedger {

    /**
     * Pins the space to the stock identity provider at {@code url} (SPEC §13.14). The same
     * provider again is a no-op answering the pin there; another is {@code failed-precondition}
     * ("the space is pinned to {@code <url>}; re-pinning to another identity provider is refused").
     */
    IdpPin pinStock(String url);

    /** Pins the space to an OpenID Connect provider (SPEC §13.14), by {@link #pinStock}'s rule. */
    IdpPin pinOidc(String issuer, String clientId, List<String> algorithms);

    /** Where this backend keeps the ledger. */
    Placement placement();
}
