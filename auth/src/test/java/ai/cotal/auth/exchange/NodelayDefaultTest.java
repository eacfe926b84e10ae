package ai.cotal.auth.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Loading {@link TokenExchange} turns the JDK HTTP server's TCP_NODELAY on unless the embedder
 * chose; checked in a fresh JVM, since this one has the property set on its command line.
 */
class NodelayDefaultTest {
    /** The probe: loads the class in a fresh JVM and prints the property. */
    public static void main(String[] args) throws Exception {
        Class.forName(TokenExchange.class.getName());
        System.out.print(System.getProperty(TokenExchange.NODELAY));
    }

    private static String probe(String... jvmOptions) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(jvmOptions));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), NodelayDefaultTest.class.getName()));
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(true, process.waitFor(60, TimeUnit.SECONDS), "the probe JVM exits");
        assertEquals(0, process.exitValue(), "the probe ran: " + out);
        return out;
    }

    @Test
    void loadingTheExchangeTurnsNodelayOnUnlessTheEmbedderChose() throws Exception {
        assertEquals("true", probe(), "unset: the exchange turns it on");
        assertEquals("false", probe("-D" + TokenExchange.NODELAY + "=false"), "the embedder's choice is kept");
    }
}
