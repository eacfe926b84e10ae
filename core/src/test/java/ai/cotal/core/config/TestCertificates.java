package ai.cotal.core.config;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Test certificates: a self-signed EC certificate for 127.0.0.1 and localhost, made with the
 * JDK's keytool, written as {@code cert.pem} and {@code key.pem} (PEM, for nats-server) next to
 * {@code broker.p12}. It names no extended key usage, so it serves as a server and as a client
 * certificate, and as its own CA file.
 */
final class TestCertificates {
    private static final char[] PASSWORD = "test-store".toCharArray();

    private TestCertificates() {
    }

    static void make(Path dir) throws Exception {
        Path store = dir.resolve("broker.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "broker", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=127.0.0.1",
                "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-validity", "2", "-keystore", store.toString(),
                "-storetype", "PKCS12", "-storepass", new String(PASSWORD), "-keypass", new String(PASSWORD))
                .redirectErrorStream(true).start();
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(keytool.waitFor(60, TimeUnit.SECONDS) && keytool.exitValue() == 0, output);
        KeyStore keys = load(dir);
        Certificate cert = keys.getCertificate("broker");
        PrivateKey key = (PrivateKey) keys.getKey("broker", PASSWORD);
        Files.writeString(dir.resolve("cert.pem"), pem("CERTIFICATE", cert.getEncoded()));
        Files.writeString(dir.resolve("key.pem"), pem("PRIVATE KEY", key.getEncoded()));
    }

    /** A client TLS context that trusts exactly the certificate made in {@code dir}. */
    static SSLContext trusting(Path dir) throws Exception {
        return context(null, dir);
    }

    /** {@link #trusting} that also presents the certificate made in {@code dir} as its own (a cluster peer). */
    static SSLContext presenting(Path dir) throws Exception {
        javax.net.ssl.KeyManagerFactory keys = javax.net.ssl.KeyManagerFactory.getInstance(
                javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
        keys.init(load(dir), PASSWORD);
        return context(keys.getKeyManagers(), dir);
    }

    private static SSLContext context(javax.net.ssl.KeyManager[] own, Path dir) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("broker", load(dir).getCertificate("broker"));
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(own, factory.getTrustManagers(), null);
        return context;
    }

    private static KeyStore load(Path dir) throws Exception {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(dir.resolve("broker.p12"))) {
            keys.load(in, PASSWORD);
        }
        return keys;
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der) + "\n-----END " + type + "-----\n";
    }
}
