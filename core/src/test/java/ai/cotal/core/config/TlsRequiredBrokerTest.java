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
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A tls-required render on the real broker: TLS clients connect, plaintext clients are refused. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class TlsRequiredBrokerTest {
    @Test
    void tlsClientsConnectAndPlaintextClientsAreRefused(NatsBrokers brokers) throws Exception {
        Clock clock = Clock.systemUTC();
        BrokerAuth auth = BrokerAuth.create("tls", clock);
        SpaceAccountAuth space = SpaceAccountAuth.create(auth, "secure", clock);
        NatsBroker nats = brokers.start(b -> {
            try {
                TestCertificates.make(b.workDir());
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
                .sslContext(TestCertificates.trusting(nats.workDir())).build())) {
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
