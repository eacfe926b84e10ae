package ai.cotal.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ServerConfigTest {
    private final Clock clock = Clock.systemUTC();
    private final BrokerAuth broker = BrokerAuth.create("cfg", clock);
    private final SpaceAccountAuth alpha = SpaceAccountAuth.create(broker, "alpha", clock);

    private ServerConfigOptions.Builder options() {
        return ServerConfigOptions.builder().transport(Transport.plaintext()).storeDir(Path.of("/var/lib/nats"));
    }

    private static void refused(String field, Runnable render) {
        CotalException e = assertThrows(CotalException.class, render::run);
        assertEquals(ErrorCode.BAD_REQUEST, e.code());
        assertTrue(e.getMessage().startsWith(field), e.getMessage());
    }

    @Test
    void rendersTheBrokerInOrder() {
        String config = ServerConfig.render(broker, List.of(alpha), options().maxFileStore(1 << 30).build());
        assertTrue(config.contains("host: \"127.0.0.1\"\nport: 4222\nmax_control_line: 65536\n"), config);
        assertTrue(config.contains("jetstream {\n  store_dir: \"/var/lib/nats\"\n  max_file_store: 1073741824\n}"), config);
        assertTrue(config.contains("operator: " + broker.operatorJwt()));
        assertTrue(config.contains("system_account: " + broker.systemAccount()));
        assertTrue(config.contains("resolver: MEMORY"));
        assertTrue(config.contains(alpha.accountPublicKey() + ": " + alpha.jwt()));
        assertTrue(config.contains(broker.systemAccount() + ": " + broker.systemJwt()));
        assertFalse(config.contains("tls"), config);
        assertFalse(config.contains(alpha.signing().seed()), "no seed in a config");
    }

    @Test
    void rendersTlsRequiredNeverAllowNonTls() {
        String config = ServerConfig.render(broker, List.of(alpha), options()
                .transport(Transport.tlsRequired(Path.of("/etc/c.pem"), Path.of("/etc/k.pem"))).build());
        assertTrue(config.contains("tls {\n  cert_file: \"/etc/c.pem\"\n  key_file: \"/etc/k.pem\"\n}"), config);
        assertFalse(config.contains("allow_non_tls"));
    }

    @Test
    void rendersAFullResolver() {
        String config = ServerConfig.render(broker, List.of(alpha), options()
                .resolver(AccountResolver.full(Path.of("/r/jwts"), 500, Duration.ofMinutes(2))).build());
        assertTrue(config.contains("resolver {\n  type: full\n  dir: \"/r/jwts\"\n  allow_delete: false\n  interval: \"120s\"\n  limit: 500\n}"), config);
        assertTrue(config.contains("resolver_preload: {"));
    }

    @Test
    void refusesNoSpaces() {
        refused("spaces", () -> ServerConfig.render(broker, List.of(), options().build()));
    }

    @Test
    void refusesAnAccountOfAnotherOperator() {
        BrokerAuth other = BrokerAuth.create("other", clock);
        SpaceAccountAuth foreign = SpaceAccountAuth.create(other, "foreign", clock);
        refused("spaces[1]", () -> ServerConfig.render(broker, List.of(alpha, foreign), options().build()));
        refused("extraAccounts[0]", () -> ServerConfig.render(broker, List.of(alpha),
                options().extraAccounts(List.of(foreign.jwt())).build()));
    }

    @Test
    void refusesAnAccountPreloadedTwice() {
        refused("spaces[1]", () -> ServerConfig.render(broker, List.of(alpha, alpha), options().build()));
        refused("extraAccounts[0]", () -> ServerConfig.render(broker, List.of(alpha),
                options().extraAccounts(List.of(broker.systemJwt())).build()));
    }

    @Test
    void refusesBadOptionsNamingThem() {
        refused("maxFileStore", () -> options().maxFileStore(0).build());
        refused("transport", () -> ServerConfigOptions.builder().storeDir(Path.of("/x")).build());
        refused("storeDir", () -> ServerConfigOptions.builder().transport(Transport.plaintext()).build());
        refused("port", () -> options().port(0).build());
        refused("resolver.limit", () -> AccountResolver.full(Path.of("/r"), 0, Duration.ofMinutes(1)));
        refused("transport.certFile", () -> Transport.tlsRequired(Path.of(""), Path.of("/k")));
    }

    @Test
    void aRenderThatDisagreesWithTheBrokerPolicyIsRefused() {
        BrokerPolicy fullPolicy = new BrokerPolicy(Transport.plaintext(),
                java.util.Optional.of(new BrokerPolicy.FullResolver(500, Duration.ofMinutes(2))));
        AccountResolver full = AccountResolver.full(Path.of("/r/jwts"), 500, Duration.ofMinutes(2));
        options().policy(fullPolicy).resolver(full).build();
        refused("resolver", () -> options().policy(fullPolicy).build());
        refused("resolver", () -> options().policy(fullPolicy)
                .resolver(AccountResolver.full(Path.of("/r/jwts"), 10, Duration.ofMinutes(2))).build());
        BrokerPolicy memoryPolicy = new BrokerPolicy(Transport.plaintext(), java.util.Optional.empty());
        refused("resolver", () -> options().policy(memoryPolicy).resolver(full).build());
        refused("transport", () -> options().policy(memoryPolicy)
                .transport(Transport.tlsRequired(Path.of("/c"), Path.of("/k"))).build());
    }

    @Test
    void quotesPathsSafely() {
        assertEquals("\"a\\\"b\\\\c\"", ServerConfig.quote("a\"b\\c"));
    }
}
