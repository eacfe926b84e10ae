package ai.cotal.core.stores;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;

/**
 * {@code IssuedStores.recreate} refused before writing or deleting anything: nothing predates
 * bounded retention, the backup directory exists, or a backup did not match its stream.
 */
public final class IssuedStoreRecreateRefusal extends CotalException {
    private static final long serialVersionUID = 1L;

    public IssuedStoreRecreateRefusal(String message) {
        super(ErrorCode.FAILED_PRECONDITION, message);
    }
}
