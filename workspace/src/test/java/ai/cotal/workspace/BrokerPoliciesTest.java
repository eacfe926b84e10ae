package ai.cotal.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.config.AccountResolver;
import ai.cotal.core.config.BrokerPolicy;
import ai.cotal.core.config.Transport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokerPoliciesTest {
    @TempDir
    Path root;

    private final BrokerPolicy full = new BrokerPolicy(Transport.plaintext(),
            Optional.of(new BrokerPolicy.FullResolver(500, Duration.ofMinutes(2))));

    private void file(String json) throws Exception {
        Files.createDirectories(root.resolve(".cotal"));
        Files.writeString(root.resolve(BrokerPolicies.FILE), json);
    }

    private CotalException refused(String json) throws Exception {
        file(json);
        return assertThrows(CotalException.class, () -> BrokerPolicies.readBrokerPolicy(root));
    }

    @Test
    void absentFileIsEmpty() {
        assertEquals(Optional.empty(), BrokerPolicies.readBrokerPolicy(root));
    }

    @Test
    void roundTripsAtomicallyWithPrivateModes() throws Exception {
        BrokerPolicies.writeBrokerPolicy(root, full);
        assertEquals(Optional.of(full), BrokerPolicies.readBrokerPolicy(root));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(root.resolve(BrokerPolicies.FILE))));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(root.resolve(".cotal"))));
        assertEquals("{\"version\":1,\"transport\":{\"kind\":\"plaintext\"},\"accountResolver\":{\"kind\":\"full\",\"limit\":500,\"intervalSeconds\":120}}",
                Files.readString(root.resolve(BrokerPolicies.FILE)));
        try (var files = Files.list(root.resolve(".cotal"))) {
            assertEquals(1, files.count(), "no temp file left behind");
        }
    }

    @Test
    void everyRenderNamesTheSameResolverDirectory() {
        AccountResolver resolver = BrokerPolicies.brokerAccountResolver(root, full);
        assertEquals(AccountResolver.full(root.resolve(".cotal/account-jwts"), 500, Duration.ofMinutes(2)), resolver);
        assertEquals(AccountResolver.memory(), BrokerPolicies.brokerAccountResolver(root,
                new BrokerPolicy(Transport.plaintext(), Optional.empty())));
    }

    @Test
    void invalidFilesFailClosed() throws Exception {
        for (String json : new String[] {"", "{", "[]", "{\"version\":2,\"transport\":{\"kind\":\"plaintext\"}}",
                "{\"transport\":{\"kind\":\"plaintext\"}}", "{\"version\":1}", "{\"version\":1,\"transport\":{\"kind\":\"quic\"}}",
                "{\"version\":1,\"transport\":{\"kind\":\"tls-required\"}}",
                "{\"version\":1,\"transport\":{\"kind\":\"plaintext\"},\"extra\":1}",
                "{\"version\":\"1\",\"transport\":{\"kind\":\"plaintext\"}}",
                "{\"version\":1,\"transport\":{\"kind\":\"plaintext\"},\"accountResolver\":{\"kind\":\"memory\"}}",
                "{\"version\":1,\"transport\":{\"kind\":\"plaintext\"},\"accountResolver\":{\"kind\":\"full\",\"limit\":0,\"intervalSeconds\":60}}"}) {
            CotalException e = refused(json);
            assertEquals(ErrorCode.DATA_LOSS, e.code(), json + " -> " + e.getMessage());
            assertTrue(e.getMessage().startsWith("broker-policy.json"), e.getMessage());
        }
    }

    @Test
    void tlsPolicyWithMissingFilesIsRefused() throws Exception {
        CotalException e = refused("{\"version\":1,\"transport\":{\"kind\":\"tls-required\",\"certFile\":\"/nope/c.pem\",\"keyFile\":\"/nope/k.pem\"}}");
        assertEquals(ErrorCode.FAILED_PRECONDITION, e.code());
        Path cert = Files.writeString(root.resolve("c.pem"), "x");
        Path key = Files.writeString(root.resolve("k.pem"), "x");
        BrokerPolicy tls = new BrokerPolicy(Transport.tlsRequired(cert, key), Optional.empty());
        BrokerPolicies.writeBrokerPolicy(root, tls);
        assertEquals(Optional.of(tls), BrokerPolicies.readBrokerPolicy(root));
    }
}
