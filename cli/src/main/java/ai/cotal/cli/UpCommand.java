package ai.cotal.cli;

import ai.cotal.core.CotalException;
import ai.cotal.workspace.PrivateFiles;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Set;

/**
 * {@code cotal-auth up}: renders the broker config of every tenant of a root on the full resolver
 * (SPEC §7.5) to {@code <root>/.cotal/nats-server.conf} (0600, atomic) and prints the tenants and
 * the command that starts the broker. Refused, with nothing written, while any tenant record is
 * unreadable (each is named) or the root has no tenant.
 */
final class UpCommand {
    static final String CONFIG = ".cotal/nats-server.conf";
    private static final String USAGE = "usage: cotal-auth up --root DIR [--host H] [--port N] [--store-dir DIR]";

    private UpCommand() {
    }

    static int run(List<String> args, PrintStream out, PrintStream err, Clock clock) {
        Flags flags;
        int port;
        try {
            flags = Flags.parse(args, Set.of("--root", "--host", "--port", "--store-dir"), Set.of("--root"));
            port = flags.port("--port", 4222);
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            err.println(USAGE);
            return 2;
        }
        Path root = Path.of(flags.get("--root")).toAbsolutePath().normalize();
        Path storeDir = flags.optional("--store-dir").map(Path::of).orElse(root.resolve(".cotal").resolve("jetstream"))
                .toAbsolutePath().normalize();
        Tenants tenants = new Tenants(root, clock);
        try {
            String config = tenants.render(flags.optional("--host").orElse("127.0.0.1"), port, storeDir);
            Path file = root.resolve(CONFIG);
            PrivateFiles.ensureDirectory(root, file.getParent());
            PrivateFiles.write(file, config.getBytes(StandardCharsets.UTF_8));
            out.printf("| %-16s | %-56s | %s%n", "space", "account", "state");
            out.printf("|%s|%s|%s%n", "-".repeat(18), "-".repeat(58), "-".repeat(9));
            for (Tenants.Tenant tenant : tenants.read()) {
                out.printf("| %-16s | %-56s | %s%n", tenant.space(), tenant.account().accountPublicKey(),
                        tenant.retired() ? "retired" : "live");
            }
            out.println("rendered " + file + " (full resolver in " + root.resolve(".cotal/account-jwts") + ")");
            out.println("start the broker: nats-server -c " + file);
            return 0;
        } catch (CotalException e) {
            err.println("cotal-auth up: " + e.code().wire() + ": " + e.getMessage());
            return 1;
        } catch (RuntimeException e) {
            err.println("cotal-auth up: " + e.getMessage());
            return 1;
        }
    }
}
