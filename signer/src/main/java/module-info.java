/**
 * The remote signer of a Cotal space (SPEC §16): {@link ai.cotal.signer.SignerServer}, the
 * key-holding process's server, with its policy, catalogue and audit log; and
 * {@link ai.cotal.signer.UnixSocketAccountSigner}, the client an authority plane signs its user
 * JWTs through. Both halves speak one frame protocol over a Unix domain socket.
 *
 * <p>This module reads core and workspace only: a signer process carries no HTTP server, no JOSE
 * library and no metrics library.
 */
module ai.cotal.signer {
    requires transitive ai.cotal.core;
    requires ai.cotal.workspace; // private directories and files (PrivateFiles)
    requires org.slf4j;
    requires jdk.net; // the peer user of a signer connection (SO_PEERCRED)

    exports ai.cotal.signer;

    // Closed JSON parsing binds the policy file's and the description's records reflectively.
    opens ai.cotal.signer to com.fasterxml.jackson.databind;
}
