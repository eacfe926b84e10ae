/**
 * The trust chain of a Cotal deployment: operator, system and data accounts, users, nkeys and NATS
 * JWTs; the nats-server configuration; credentials from the profile matrix; the stores a space
 * owns; account-claim pushes on a running broker; and the one door every SDK connection to NATS
 * goes through ({@link ai.cotal.core.connect.NatsConnector}). See SPEC.md §1-§9.
 *
 * <p>The packages below {@code ai.cotal.core.internal} are not API: they are exported only to the
 * SDK's own modules.
 */
// "module": the qualified exports name SDK modules compiled after this one; "requires-automatic":
// jnats 2.26 ships an Automatic-Module-Name but no descriptor.
@SuppressWarnings({"module", "requires-automatic", "requires-transitive-automatic"})
module ai.cotal.core {
    requires transitive io.nats.jnats;
    requires transitive org.bouncycastle.provider;
    requires com.fasterxml.jackson.databind;
    requires org.slf4j;

    exports ai.cotal.core;
    exports ai.cotal.core.claims;
    exports ai.cotal.core.config;
    exports ai.cotal.core.id;
    exports ai.cotal.core.connect;
    exports ai.cotal.core.creds;
    exports ai.cotal.core.issued;
    exports ai.cotal.core.jwt;
    exports ai.cotal.core.keys;
    exports ai.cotal.core.secrets;
    exports ai.cotal.core.stores;
    exports ai.cotal.core.trust;

    exports ai.cotal.core.internal.connect to ai.cotal.auth;
    exports ai.cotal.core.internal.grants to ai.cotal.auth, ai.cotal.signer;
    exports ai.cotal.core.internal.json to ai.cotal.workspace, ai.cotal.signer, ai.cotal.auth;
    exports ai.cotal.core.internal.keys to ai.cotal.signer, ai.cotal.auth;
    exports ai.cotal.core.internal.kv to ai.cotal.signer, ai.cotal.auth;

    // Closed JSON parsing binds records of these packages reflectively.
    opens ai.cotal.core.claims to com.fasterxml.jackson.databind;
    opens ai.cotal.core.issued to com.fasterxml.jackson.databind;
    opens ai.cotal.core.jwt to com.fasterxml.jackson.databind;
    opens ai.cotal.core.stores to com.fasterxml.jackson.databind;
    opens ai.cotal.core.internal.json to com.fasterxml.jackson.databind;
    opens ai.cotal.core.internal.kv to com.fasterxml.jackson.databind;
}
