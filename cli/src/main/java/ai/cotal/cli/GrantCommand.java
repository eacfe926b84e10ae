package ai.cotal.cli;

import ai.cotal.auth.Grant;
import ai.cotal.auth.GrantSubjects;
import ai.cotal.auth.InboxNonce;
import ai.cotal.core.CotalException;
import ai.cotal.core.id.Principal;
import ai.cotal.core.id.SpaceName;
import java.io.PrintStream;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code cotal-auth grant subjects}: prints the broker subjects a grant opens to one connection of
 * its principal through the auth callout ({@link Grant#subjects}, SPEC §13.14): what the callout
 * writes into that connection's user JWT. Reads and writes nothing: the grant is given by its
 * channels ({@code --publish}, {@code --subscribe}, comma-separated), and the inbox is that of
 * {@code --nonce} or, without it, of a fresh nonce of the principal, printed below the table.
 * Exit 0 printed; 2 usage or a refused argument ({@code bad-request} naming the field).
 */
final class GrantCommand {
    private static final String NAME = "cotal-auth grant subjects";
    private static final String USAGE = "usage: cotal-auth grant subjects --space NAME --owner OWNER --actor ACTOR"
            + " [--publish CH[,CH...]] [--subscribe CH[,CH...]] [--nonce NONCE]";
    private static final String ROW = "| %-9s | %s%n";

    private GrantCommand() {
    }

    static int run(List<String> args, PrintStream out, PrintStream err) {
        if (args.isEmpty() || !args.get(0).equals("subjects")) {
            err.println(USAGE);
            return 2;
        }
        Flags flags;
        try {
            flags = Flags.parse(args.subList(1, args.size()), Set.of("--space", "--owner", "--actor", "--publish",
                    "--subscribe", "--nonce"), Set.of("--space", "--owner", "--actor"));
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            err.println(USAGE);
            return 2;
        }
        GrantSubjects subjects;
        String nonce;
        try {
            SpaceName space = SpaceName.of(flags.get("--space"), "space");
            Principal principal = Principal.of(flags.get("--owner"), flags.get("--actor"));
            Grant grant = Grant.of(List.of(), channels(flags.optional("--subscribe")), channels(flags.optional("--publish")));
            nonce = flags.optional("--nonce").orElseGet(() -> InboxNonce.forPrincipal(principal));
            subjects = grant.subjects(space, principal, nonce);
        } catch (CotalException e) {
            err.println(NAME + ": " + e.code().wire() + ": " + e.getMessage());
            return 2;
        }
        out.printf(ROW, "side", "subject");
        out.printf("|%s|%s%n", "-".repeat(11), "-".repeat(40));
        if (subjects.publish().isEmpty()) {
            out.printf(ROW, "publish", "(none: every publish is denied)");
        }
        subjects.publish().forEach(subject -> out.printf(ROW, "publish", subject));
        subjects.subscribe().forEach(subject -> out.printf(ROW, "subscribe", subject));
        out.println("inbox nonce " + nonce + (flags.optional("--nonce").isPresent() ? ""
                : " (a fresh one: name the connection after it, or pass the client's with --nonce)"));
        return 0;
    }

    /** A comma-separated list of channels; absent is none. */
    private static List<String> channels(Optional<String> value) {
        return value.map(text -> List.of(text.split(",", -1))).orElse(List.of());
    }
}
