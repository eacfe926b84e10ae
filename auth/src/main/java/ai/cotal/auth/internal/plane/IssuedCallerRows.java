package ai.cotal.auth.internal.plane;

import ai.cotal.auth.BearerClaims;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.issued.Ceiling;
import ai.cotal.core.issued.IssuedAuthority;
import ai.cotal.core.issued.IssuedRef;
import ai.cotal.core.issued.Source;
import io.nats.client.Connection;
import java.time.Clock;
import java.util.List;
import java.util.Optional;

/**
 * The issued-caller path (SPEC §13.15) over one issuer connection, resolving sources with the
 * plane's composed check ({@link PlaneSourceLiveness}): shared by the authority plane and a
 * callout replica. A new issuance is charged to the {@link WriteBudget} (SPEC §13.20) before
 * anything is written; a confirm writes nothing and is not charged. Thread-safe.
 */
public final class IssuedCallerRows {
    private final String space;
    private final IssuedAuthority issued;
    private final WriteBudget budget;

    /** Issued callers of {@code space}; every new issuance is charged to {@code budget}. */
    public IssuedCallerRows(String space, Connection issuerConnection, ai.cotal.auth.internal.ledger.LedgerBackend ledger, Clock clock,
            WriteBudget budget) {
        this.space = space;
        this.budget = java.util.Objects.requireNonNull(budget, "budget");
        this.issued = IssuedAuthority.bind(issuerConnection, space, new PlaneSourceLiveness(space, ledger,
                issuerConnection), clock);
    }

    /**
     * Writes the accepted row of {@code connId} with a fresh generation the first time; a reconnect
     * under the same id confirms it when principal, uid and ceiling are the same. A new id is
     * charged to the budget first ({@code resource-exhausted} naming the limit, nothing written).
     */
    public Ceiling issue(BearerClaims bearer, String connId, Ceiling ceiling) {
        String token = IssuedAuthority.acceptedToken(connId);
        Optional<IssuedRef> existing = issued.accepted(token);
        if (existing.isEmpty()) {
            budget.charge(WriteBudget.Kind.ISSUANCE, bearer.owner().value(), bearer.actor().value());
            IssuedRef ref = new IssuedRef(space, bearer.owner().value(), bearer.actor().value(), bearer.lifecycleUid().value(),
                    IssuedAuthority.newGeneration());
            Source source = new Source(space, PlaneSourceLiveness.actorsBucket(space), "actor." + bearer.owner().value() + "." + bearer.actor().value() + "."
                    + bearer.lifecycleUid().value());
            issued.release(issued.stage(ref, List.of(source), ceiling, Optional.empty()), token);
            return ceiling;
        }
        IssuedRef ref = existing.get();
        if (!ref.owner().equals(bearer.owner().value()) || !ref.actor().equals(bearer.actor().value())
                || !ref.uid().equals(bearer.lifecycleUid().value())) {
            throw new CotalException(ErrorCode.PERMISSION_DENIED, "this connection id was issued to another principal or"
                    + " lifecycle: reconnect under a new nonce");
        }
        try {
            issued.confirm(token, ceiling);
        } catch (CotalException e) {
            if (e.code() == ErrorCode.CONFLICT) {
                throw new CotalException(ErrorCode.PERMISSION_DENIED, "the permissions changed since this connection id"
                        + " was issued: reconnect under a new nonce");
            }
            throw e;
        }
        return ceiling;
    }

    /** Resolves an issued caller's accepted row. */
    public IssuedAuthority.Resolved resolve(String token) {
        return issued.resolve(token);
    }
}
