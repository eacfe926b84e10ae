/**
 * The authority plane of a Cotal space: {@link ai.cotal.auth.AuthAuthorityPlane} (its
 * {@code open} starts the plane, which answers the auth callout when asked to, and hands out its facets), the token
 * exchange and HTTP faces ({@code ai.cotal.auth.exchange}), the stock service
 * ({@code ai.cotal.auth.service}), the Ed25519 JOSE pair ({@code ai.cotal.auth.jose}) and the
 * meter sink the plane reports to ({@code ai.cotal.auth.metrics}, with a Micrometer sink in
 * {@code ai.cotal.auth.micrometer}). The remote signer, server and client, is the module
 * {@code ai.cotal.signer}.
 *
 * <p>{@code ai.cotal.auth.internal.*} is the implementation: not exported to anyone.
 */
// Micrometer 1.17 ships as an automatic module (micrometer.core) with no descriptor of its own
@SuppressWarnings("requires-automatic")
module ai.cotal.auth {
    requires transitive ai.cotal.core;
    requires transitive ai.cotal.workspace;
    requires transitive ai.cotal.servicehost;
    requires transitive com.nimbusds.jose.jwt;
    requires com.fasterxml.jackson.databind;
    requires org.eclipse.jetty.server;
    requires org.slf4j;
    requires java.net.http;
    requires ai.cotal.signer; // the client of a space's remote signer (SPEC §16)
    // optional (SPEC §13.21), and not transitive: only ai.cotal.auth.micrometer names its types,
    // and an embedder who calls it reads micrometer.core itself; one without Micrometer compiles
    // and runs against this module with no Micrometer on its module path
    requires static micrometer.core;

    exports ai.cotal.auth;
    exports ai.cotal.auth.exchange;
    exports ai.cotal.auth.jose;
    exports ai.cotal.auth.metrics;
    exports ai.cotal.auth.micrometer;
    exports ai.cotal.auth.records;
    exports ai.cotal.auth.service;

    // Closed JSON parsing binds the records of these packages reflectively.
    opens ai.cotal.auth to com.fasterxml.jackson.databind;
    opens ai.cotal.auth.exchange to com.fasterxml.jackson.databind;
    opens ai.cotal.auth.service to com.fasterxml.jackson.databind;
    opens ai.cotal.auth.internal.endpoint to com.fasterxml.jackson.databind;
    opens ai.cotal.auth.internal.ledger to com.fasterxml.jackson.databind;
    opens ai.cotal.auth.internal.plane to com.fasterxml.jackson.databind;
    opens ai.cotal.auth.internal.secrets to com.fasterxml.jackson.databind;
    opens ai.cotal.auth.internal.manager to com.fasterxml.jackson.databind;
    opens ai.cotal.auth.internal.run to com.fasterxml.jackson.databind;
}
