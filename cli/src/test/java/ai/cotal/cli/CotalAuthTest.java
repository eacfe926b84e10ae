package ai.cotal.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The cotal-auth command: usage, and the demo end to end on the project's nats-server. */
class CotalAuthTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return CotalAuth.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void anUnknownCommandPrintsUsage() {
        assertEquals(2, run("teleport"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("usage: cotal-auth demo"));
    }

    @Test
    void theDemoDrivesEveryStepThroughTheRoutesAndExitsZero() {
        int code = run("demo");
        String printed = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, err.toString(StandardCharsets.UTF_8) + printed);
        for (String row : new String[] {"| register       | pending", "| decide         | completed",
                "| caller-grant   | granted", "| instance-read  | completed", "| name-bind      | completed",
                "| revoke         | completed"}) {
            assertTrue(printed.contains(row), "missing row " + row + " in\n" + printed);
        }
        assertTrue(printed.contains("denyNew in-effect"), printed);
        assertTrue(printed.contains("everything it started is stopped"), printed);
    }
}
