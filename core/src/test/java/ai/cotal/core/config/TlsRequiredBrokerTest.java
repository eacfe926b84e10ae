package ai.cotal.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.BrokerClients;
import ai.cotal.core.creds.CredentialProfile;
import ai.cotal.core.creds.Creds;
import ai.cotal.core.creds.Identity;
import ai.cotal.core.creds.MintOptions;
import ai.cotal.core.trust.BrokerAuth;
import ai.cotal.core.trust.SpaceAccountAuth;
import ai.cotal.core.trust.SpaceAuth;
import ai.cotal.testbroker.NatsBroker;
import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.testbroker.NatsBrokers;
import io.nats.client.Connection;
import io.nats.client.Nats;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.time.Clock;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A tls-required render on the real broker: TLS clients connect, plaintext clients are refused. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class TlsRequiredBrokerTest {
    private static final char[] PASSWORD = "test-store".toCharArray();

    /** A self-signed certificate for 127.0.0.1, made with the JDK's keytool; PEM files for nats-server. */
    private static void makeCertificate(Path dir) throws Exception {
        Path store = dir.resolve("broker.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "broker", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=127.0.0.1",
                "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-validity", "2", "-keystore", store.toString(),
                "-storetype", "PKCS12", "-storepass", new String(PASSWORD), "-keypass", new String(PASSWORD))
                .redirectErrorStream(true).start();
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(keytool.waitFor(60, TimeUnit.SECONDS) && keytool.exitValue() == 0, output);
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keys.load(in, PASSWORD);
        }
        Certificate cert = keys.getCertificate("broker");
        PrivateKey key = (PrivateKey) keys.getKey("broker", PASSWORD);
        Files.writeString(dir.resolve("cert.pem"), pem("CERTIFICATE", cert.getEncoded()));
        Files.writeString(dir.resolve("key.pem"), pem("PRIVATE KEY", key.getEncoded()));
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der) + "\n-----END " + type + "-----\n";
    }

    private static SSLContext trusting(Path dir) throws Exception {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(dir.resolve("broker.p12"))) {
            keys.load(in, PASSWORD);
        }
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("broker", keys.getCertificate("broker"));
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        return context;
    }

    @Test
    void tlsClientsConnectAndPlaintextClientsAreRefused(NatsBrokers brokers) throws Exception {
        Clock clock = Clock.systemUTC();
        BrokerAuth auth = BrokerAuth.create("tls", clock);
        SpaceAccountAuth space = SpaceAccountAuth.create(auth, "secure", clock);
        NatsBroker nats = brokers.start(b -> {
            try {
                makeCertificate(b.workDir());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            return ServerConfig.render(auth, List.of(space), ServerConfigOptions.builder().storeDir(b.storeDir())
                    .transport(Transport.tlsRequired(b.workDir().resolve("cert.pem"), b.workDir().resolve("key.pem")))
                    .build());
        });
        assertFalse(nats.config().contains("allow_non_tls"));
        Creds creds = Creds.mint(new SpaceAuth(auth, space), Identity.create(), CredentialProfile.OBSERVER, MintOptions.defaults());
        try (Connection tls = Nats.connect(BrokerClients.options(nats, creds).server(nats.tlsUrl())
                .sslContext(trusting(nats.workDir())).build())) {
            assertEquals(Connection.Status.CONNECTED, tls.getStatus());
        }
        try (Socket plain = new Socket(nats.host(), nats.port())) {
            plain.setSoTimeout(5_000);
            BufferedReader reader = new BufferedReader(new InputStreamReader(plain.getInputStream(), StandardCharsets.UTF_8));
            String info = reader.readLine();
            assertTrue(info.contains("\"tls_required\":true"), info);
            OutputStream out = plain.getOutputStream();
            out.write("CONNECT {\"verbose\":false}\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String answer;
            try {
                answer = reader.readLine();
            } catch (SocketException reset) {
                answer = null;
            }
            assertEquals(null, answer, "the broker must close a plaintext client's connection without a PONG");
        }
    }
}
