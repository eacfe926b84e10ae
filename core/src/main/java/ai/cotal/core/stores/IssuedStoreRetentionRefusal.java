package ai.cotal.core.stores;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;

/**
 * An issued or accepted store was created before bounded retention (its history is unbounded).
 * Every issuer and resolver that binds it refuses; the message names the recreation step.
 */
public final class IssuedStoreRetentionRefusal extends CotalException {
    private static final long serialVersionUID = 1L;

    public IssuedStoreRetentionRefusal(String stream) {
        super(ErrorCode.FAILED_PRECONDITION, "store " + stream + " predates bounded retention (no max_age): stop this"
                + " space's issuers and resolvers, run IssuedStores.recreate(connection, space, backupDir) with an"
                + " issued-store-recreate credential, then SpaceStores.setup (cotal-auth space recreate-issued does both)");
    }
}
