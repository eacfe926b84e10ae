package ai.cotal.cli;

import ai.cotal.auth.service.ServiceMaterial;
import ai.cotal.core.trust.SpaceSigner;
import ai.cotal.signer.SignerPolicy;
import ai.cotal.signer.SignerServer;
import ai.cotal.signer.SignerServerOptions;
import ai.cotal.workspace.FileSecretStore;
import ai.cotal.workspace.PrivateFiles;
import ai.cotal.workspace.SecretKeys;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * {@code cotal-auth signer --space NAME --socket PATH --root DIR [--policy FILE] [--audit FILE]
 * [--socket-group GROUP] [--audit-max-bytes N] [--audit-keep N]}: the remote signer of one space (SPEC §16). It reads the space's signing
 * seed from the root's secret store ({@code service-keys.json}), signs over the Unix socket what its
 * policy admits (the stock policy without {@code --policy}), audits every answer (default
 * {@code <root>/.cotal/signer/space.<hex>/audit.jsonl}, rotated at {@code --audit-max-bytes},
 * default 64 MiB, {@code --audit-keep} older files kept, default 8), and runs until {@code stop} completes
 * (SIGINT or SIGTERM in the command). It never prints or sends the seed.
 */
final class SignerCommand {
    static final String USAGE = "usage: cotal-auth signer --space NAME --socket PATH --root DIR [--policy FILE]"
            + " [--audit FILE] [--socket-group GROUP] [--audit-max-bytes N] [--audit-keep N]";
    private static final Set<String> FLAGS = Set.of("--space", "--socket", "--root", "--policy", "--audit",
            "--socket-group", "--audit-max-bytes", "--audit-keep");

    private SignerCommand() {
    }

    static int run(List<String> args, PrintStream out, PrintStream err, CompletableFuture<Void> stop) {
        Map<String, String> flags = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String flag = args.get(i);
            if (!FLAGS.contains(flag) || i + 1 >= args.size() || flags.put(flag, args.get(++i)) != null) {
                err.println(FLAGS.contains(flag) ? flag + " needs one value" : "unknown argument " + flag);
                err.println(USAGE);
                return 2;
            }
        }
        if (!flags.containsKey("--space") || !flags.containsKey("--socket") || !flags.containsKey("--root")) {
            err.println(USAGE);
            return 2;
        }
        long maxBytes = SignerServerOptions.DEFAULT_AUDIT_MAX_BYTES;
        int keep = SignerServerOptions.DEFAULT_AUDIT_KEEP;
        try {
            if (flags.containsKey("--audit-max-bytes")) {
                maxBytes = Long.parseLong(flags.get("--audit-max-bytes"));
            }
            if (flags.containsKey("--audit-keep")) {
                keep = Integer.parseInt(flags.get("--audit-keep"));
            }
        } catch (NumberFormatException e) {
            err.println("--audit-max-bytes and --audit-keep take a whole number");
            err.println(USAGE);
            return 2;
        }
        String space = flags.get("--space");
        Path root = Path.of(flags.get("--root")).toAbsolutePath().normalize();
        try {
            SpaceSigner signer = ServiceMaterial.loadSigner(new FileSecretStore(root), space);
            SignerServerOptions.Builder options = SignerServerOptions.builder().signer(signer)
                    .socket(Path.of(flags.get("--socket"))).audit(audit(root, space, flags.get("--audit")))
                    .auditRotation(maxBytes, keep);
            if (flags.containsKey("--policy")) {
                options.policy(SignerPolicy.parse(Files.readAllBytes(Path.of(flags.get("--policy")))));
            }
            if (flags.containsKey("--socket-group")) {
                options.socketGroup(flags.get("--socket-group"));
            }
            try (SignerServer server = SignerServer.start(options.build())) {
                out.println("cotal-auth: signer for space " + space + " (signing key " + server.description().signingKey()
                        + ") at " + server.socket());
                stop.join();
                return 0;
            }
        } catch (IOException e) {
            err.println("cotal-auth signer: --policy cannot be read (" + e.getClass().getSimpleName() + ")");
            return 1;
        } catch (RuntimeException e) {
            err.println("cotal-auth signer: " + e.getMessage());
            return 1;
        }
    }

    /** {@code --audit}, or the root's private signer directory for the space (created 0700). */
    private static Path audit(Path root, String space, String given) {
        if (given != null) {
            return Path.of(given);
        }
        Path top = root.resolve(FileSecretStore.DIRECTORY);
        Path dir = top.resolve("signer").resolve(SecretKeys.spaceSegment(space));
        PrivateFiles.ensureDirectory(top, dir);
        return dir.resolve("audit.jsonl");
    }
}
