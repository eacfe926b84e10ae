package ai.cotal.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.testbroker.NatsBrokerExtension;
import ai.cotal.workspace.NatsServer;
import ai.cotal.testbroker.NatsBrokers;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Each example runs against a real nats-server started from the config the example rendered. */
@Tag("broker")
@ExtendWith(NatsBrokerExtension.class)
class ExamplesBrokerTest {
    private static List<String> lines(ByteArrayOutputStream out) {
        return out.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    void theFirstProgramIsRefusedByTheBrokerOnAnUngrantedSubjectAndAfterTheRevoke(NatsBrokers brokers) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        FirstProgram.run(NatsServer.find(), new PrintStream(out, true, StandardCharsets.UTF_8));
        List<String> lines = lines(out);
        assertEquals(2, lines.size(), lines.toString());
        assertTrue(lines.get(0).startsWith("connected; the broker refused: ")
                && lines.get(0).contains("Permissions Violation for Publish to \"cotal.alpha.chat.u_abcdefghijklmnopqrstuvwxyz"
                        + ".laptop.secret\""), lines.get(0));
        assertTrue(lines.get(1).startsWith("revoked; the broker refused the connect: ")
                && lines.get(1).contains("Authorization Violation"), lines.get(1));
    }

    @Test
    void theServiceExampleExchangesAnActorTokenForABearerOverHttp(NatsBrokers brokers) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ServiceExchange.run(NatsServer.find(), new PrintStream(out, true, StandardCharsets.UTF_8));
        assertEquals(List.of("exchange answered 200; the plane verifies the bearer for u_abcdefghijklmnopqrstuvwxyz"),
                lines(out));
    }
}
