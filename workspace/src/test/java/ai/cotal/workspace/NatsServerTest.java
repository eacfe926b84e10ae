package ai.cotal.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.core.CotalException;
import ai.cotal.core.ErrorCode;
import ai.cotal.core.config.ServerConfig;
import ai.cotal.core.config.ServerConfigOptions;
import ai.cotal.core.config.Transport;
import ai.cotal.core.trust.SpaceAuth;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The broker process helper against the real nats-server binary. */
@Tag("broker")
class NatsServerTest {
    @TempDir
    Path dir;

    private String config() {
        SpaceAuth auth = SpaceAuth.create("alpha", Clock.systemUTC());
        return ServerConfig.render(auth.broker(), List.of(auth.account()), ServerConfigOptions.builder()
                .transport(Transport.plaintext()).port(ServerConfigOptions.ANY_PORT).storeDir(dir.resolve("js")).build());
    }

    /** The first line the server answers a fresh TCP connection with ({@code INFO {...}}). */
    private static String greeting(String url) throws IOException {
        URI uri = URI.create(url);
        try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
            byte[] head = new byte[4];
            int read = socket.getInputStream().readNBytes(head, 0, 4);
            return new String(head, 0, read, StandardCharsets.US_ASCII);
        }
    }

    @Test
    void startsOnTheFreePortItChoseAndStopsOnClose() throws IOException {
        NatsServer nats = NatsServer.start(NatsServer.find(), config(), dir.resolve("nats"));
        try {
            assertTrue(nats.url().matches("nats://127\\.0\\.0\\.1:\\d+"), nats.url());
            assertEquals("INFO", greeting(nats.url()), "the server answers at the URL it reported ready on");
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(
                    dir.resolve("nats").resolve("nats-server.conf"))));
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("nats"))));
        } finally {
            nats.close();
        }
        assertFalse(nats.running());
        assertThrows(IOException.class, () -> greeting(nats.url()), "nothing listens after close");
    }

    @Test
    void aConfigTheServerRefusesIsUnavailableWithItsLogTail() {
        CotalException e = assertThrows(CotalException.class, () -> NatsServer.start(NatsServer.find(),
                "port: 4222\nno_such_option_at_all {\n", dir.resolve("nats")));
        assertEquals(ErrorCode.UNAVAILABLE, e.code());
        assertTrue(e.getMessage().contains("did not become ready (it exited)"), e.getMessage());
    }

    @Test
    void badArgumentsAreRefusedNamingTheFieldBeforeAnythingIsWritten() {
        Path nats = dir.resolve("nats");
        assertEquals("binary", field(() -> NatsServer.start(dir.resolve("absent"), config(), nats)));
        assertEquals("config", field(() -> NatsServer.start(NatsServer.find(), " ", nats)));
        assertEquals("dir", field(() -> NatsServer.start(NatsServer.find(), config(), Path.of("relative"))));
        assertFalse(Files.exists(nats));
    }

    private static String field(Runnable call) {
        CotalException e = assertThrows(CotalException.class, call::run);
        assertEquals(ErrorCode.BAD_REQUEST, e.code());
        return e.getMessage().substring(0, e.getMessage().indexOf(':'));
    }
}
