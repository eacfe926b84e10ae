package ai.cotal.auth.internal.ledger;

import ai.cotal.auth.ActorRow;
import ai.cotal.auth.ConnectAttempt;
import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The ledger half of the connect check (SPEC §13.14), judged from the principal's row as a
 * placement read it: the row exists, the requested scope is within it, the lifecycle uid is its.
 * Refusals are {@code permission-denied}, worded without paths, keys or exception text (through the
 * callout they reach the broker's log); a row that does not read is "has an unreadable ledger row".
 */
public final class ConnectHalf {
    private ConnectHalf() {
    }

    /** The row {@code read} answers, if it allows {@code attempt}; {@code unavailable} passes through. */
    static ActorRow judge(ConnectAttempt attempt, Supplier<Optional<ActorRow>> read) {
        return judge(attempt, read, false);
    }

    /**
     * {@link #judge(ConnectAttempt, Supplier)}, where {@code outageIsUnreadable} says how a read
     * that cannot be answered now is refused: the file placement, whose reads are local, calls
     * every failure to read an "unreadable ledger row"; the store passes {@code unavailable} through.
     */
    public static ActorRow judge(ConnectAttempt attempt, Supplier<Optional<ActorRow>> read, boolean outageIsUnreadable) {
        ActorRow row;
        try {
            row = read.get().orElseThrow(() -> denied(attempt, "is not (or no longer) granted"));
        } catch (CotalException e) {
            if (e.code() == ErrorCode.PERMISSION_DENIED || e.code() == ErrorCode.UNAVAILABLE && !outageIsUnreadable) {
                throw e;
            }
            throw denied(attempt, "has an unreadable ledger row: " + e.getMessage());
        }
        for (String wanted : attempt.scope()) {
            if (!row.scope().contains(wanted)) {
                throw denied(attempt, "asks for scope '" + wanted + "' beyond its grant");
            }
        }
        if (!attempt.lifecycleUid().equals(row.lifecycleUid())) {
            throw denied(attempt, "presents another lifecycle uid than its grant (re-granted or revoked)");
        }
        return row;
    }

    private static CotalException denied(ConnectAttempt attempt, String why) {
        return new CotalException(ErrorCode.PERMISSION_DENIED, "actor " + attempt.principal() + " " + why);
    }
}
