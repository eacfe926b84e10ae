package ai.cotal.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.cotal.auth.Grant;
import ai.cotal.auth.InboxNonce;
import ai.cotal.core.id.Principal;
import ai.cotal.core.id.SpaceName;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** {@code cotal-auth grant subjects}: the subjects a grant opens, as {@code Grant.subjects} computes them. */
class GrantCommandTest {
    private static final String OWNER = "u_abcdefghijklmnopqrstuvwxyz";
    private static final String NONCE = InboxNonce.of(Principal.of(OWNER, "laptop"), "cli-test-random");
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return CotalAuth.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void printsEverySubjectTheGrantOpensOneARow() {
        assertEquals(0, run("grant", "subjects", "--space", "alpha", "--owner", OWNER, "--actor", "laptop",
                "--publish", "general,team.ops", "--subscribe", "general", "--nonce", NONCE), err.toString(StandardCharsets.UTF_8));
        assertEquals(List.of(
                "| side      | subject",
                "|-----------|----------------------------------------",
                "| publish   | cotal.alpha.chat." + OWNER + ".laptop.general",
                "| publish   | cotal.alpha.chat." + OWNER + ".laptop.team.ops",
                "| subscribe | _INBOX_" + NONCE + ".>",
                "| subscribe | cotal.alpha.chat.*.*.general",
                "inbox nonce " + NONCE), out().lines().collect(Collectors.toList()));
        List<String> fromTheApi = Grant.of(List.of(), List.of("general"), List.of("general", "team.ops"))
                .subjects(new SpaceName("alpha"), Principal.of(OWNER, "laptop"), NONCE).subscribe();
        assertTrue(fromTheApi.stream().allMatch(subject -> out().contains("| subscribe | " + subject + "\n")), out());
    }

    @Test
    void withoutPublishItemsEveryPublishIsDeniedAndWithoutANonceAFreshOneOfThePrincipalIsShown() {
        assertEquals(0, run("grant", "subjects", "--space", "alpha", "--owner", OWNER, "--actor", "laptop"));
        List<String> lines = out().lines().collect(Collectors.toList());
        assertEquals("| publish   | (none: every publish is denied)", lines.get(2));
        String nonce = lines.get(4).split(" ")[2];
        assertTrue(InboxNonce.belongsTo(nonce, Principal.of(OWNER, "laptop")), nonce);
        assertEquals("| subscribe | _INBOX_" + nonce + ".>", lines.get(3));
        assertEquals(5, lines.size(), out());
    }

    @Test
    void aRefusedArgumentExitsTwoNamingTheField() {
        assertEquals(2, run("grant", "subjects", "--space", "alpha", "--owner", OWNER, "--actor", "laptop",
                "--subscribe", "general,team.>"));
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("cotal-auth grant subjects: bad-request: allowSubscribe[1]:"),
                err.toString(StandardCharsets.UTF_8));
        err.reset();
        assertEquals(2, run("grant", "subjects", "--space", "alpha", "--owner", OWNER, "--actor", "laptop",
                "--nonce", InboxNonce.forPrincipal(Principal.of(OWNER, "phone"))));
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("cotal-auth grant subjects: bad-request: nonce:"),
                err.toString(StandardCharsets.UTF_8));
        err.reset();
        assertEquals(2, run("grant", "subjects", "--space", "alpha", "--owner", "alice", "--actor", "laptop"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("bad-request: owner:"), err.toString(StandardCharsets.UTF_8));
        assertEquals("", out(), "nothing printed for a refused argument");
    }

    @Test
    void aMissingFlagOrVerbPrintsUsage() {
        assertEquals(2, run("grant", "subjects", "--space", "alpha", "--owner", OWNER));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--actor is required"));
        assertEquals(2, run("grant"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("usage: cotal-auth grant subjects"));
    }
}
