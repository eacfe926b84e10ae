package ai.cotal.auth.service;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.trust.SpaceSigner;
import ai.cotal.signer.SignerDescription;
import ai.cotal.signer.UnixSocketAccountSigner;
import java.nio.file.Path;

/**
 * A space's remote signer as a lane uses it (SPEC §13.19): the {@link SpaceSigner} its connections
 * sign with, and the client the lane owns and closes after itself.
 */
record RemoteSpaceSigner(SpaceSigner signer, UnixSocketAccountSigner client) implements AutoCloseable {
    /**
     * Asks the signer at {@code socket} to describe itself and builds a client for its key;
     * {@code failed-precondition} when it signs for another space than {@code space}, named by
     * {@code who} (e.g. "lane alpha: ").
     */
    static RemoteSpaceSigner open(Path socket, String space, String who) {
        SignerDescription d = UnixSocketAccountSigner.describe(socket, UnixSocketAccountSigner.DEFAULT_TIMEOUT);
        if (!d.space().equals(space)) {
            throw new CotalException(ErrorCode.FAILED_PRECONDITION, who + "the signer at its signerSocket signs for space '"
                    + d.space() + "'");
        }
        UnixSocketAccountSigner client = UnixSocketAccountSigner.builder().socket(socket).publicKey(d.signingKey()).build();
        return new RemoteSpaceSigner(new SpaceSigner(d.space(), d.accountPublicKey(), client), client);
    }

    @Override
    public void close() {
        client.close();
    }
}
