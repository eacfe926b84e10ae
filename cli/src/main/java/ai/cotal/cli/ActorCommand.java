package ai.cotal.cli;

import ai.cotal.auth.Grant;
import ai.cotal.auth.GrantPolicy;
import ai.cotal.auth.IdpPin;
import ai.cotal.core.CotalException;
import ai.cotal.core.id.Actor;
import ai.cotal.core.id.Owner;
import ai.cotal.core.id.SpaceName;
import ai.cotal.servicehost.ContractException;
import ai.cotal.servicehost.HostJson;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code cotal-auth actor grant | revoke | list}: grants, revokes and lists a person's interactive
 * actors (SPEC §13.18) through the running service's loopback routes {@code POST /actors/grant},
 * {@code /actors/revoke} and {@code /actors/list}, with the capability of
 * {@code <state>/auth-service.json} ({@link LoopbackFace#post}: the face is checked to be the
 * service of {@code --space} before anything is sent). The person is named by {@code --subject}
 * (the {@code sub} of its ID token; the service derives the owner exactly as its exchange does)
 * or by {@code --owner}. The arguments are checked first with the routes' grammar ({@code bad-request}
 * naming the field, exit 2, nothing sent). Exit 0 with the route's JSON on stdout; 1 when the
 * service is not running, the face is not the space's, or the route refused
 * ({@code <code>: <message>}); 2 usage.
 */
final class ActorCommand {
    private static final String NAME = "cotal-auth actor";
    private static final String USAGE = "usage: cotal-auth actor grant --space NAME --state DIR (--subject SUB | --owner OWNER)"
            + " --actor ACTOR [--scope X,...] [--subscribe CH,...] [--publish CH,...] [--label TEXT]\n"
            + "       cotal-auth actor revoke --space NAME --state DIR (--subject SUB | --owner OWNER) --actor ACTOR\n"
            + "       cotal-auth actor list --space NAME --state DIR (--subject SUB | --owner OWNER)";
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Set<String> GRANT_ONLY = Set.of("--scope", "--subscribe", "--publish", "--label");

    private ActorCommand() {
    }

    static int run(List<String> args, PrintStream out, PrintStream err) {
        if (args.isEmpty() || !List.of("grant", "revoke", "list").contains(args.get(0))) {
            err.println(USAGE);
            return 2;
        }
        String verb = args.get(0);
        Flags flags;
        try {
            flags = Flags.parse(args.subList(1, args.size()), Set.of("--space", "--state", "--owner", "--subject",
                    "--actor", "--scope", "--subscribe", "--publish", "--label"), Set.of("--space", "--state"));
            usage(verb, flags);
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            err.println(USAGE);
            return 2;
        }
        Map<String, Object> body;
        try {
            body = body(verb, flags);
        } catch (CotalException e) {
            err.println(NAME + " " + verb + ": " + e.code().wire() + ": " + e.getMessage() + "; nothing was sent");
            return 2;
        }
        return send(verb, flags.get("--space"), Path.of(flags.get("--state")), body, out, err);
    }

    /** The flags each verb takes, beyond the parse: one of owner and subject, the actor where it goes. */
    private static void usage(String verb, Flags flags) {
        if (flags.optional("--owner").isPresent() == flags.optional("--subject").isPresent()) {
            throw new IllegalArgumentException("give exactly one of --subject and --owner");
        }
        if (verb.equals("list") == flags.optional("--actor").isPresent()) {
            throw new IllegalArgumentException(verb.equals("list") ? "--actor does not go with list" : "--actor is required");
        }
        if (!verb.equals("grant")) {
            for (String flag : GRANT_ONLY) {
                if (flags.optional(flag).isPresent()) {
                    throw new IllegalArgumentException(flag + " goes with grant only");
                }
            }
        }
    }

    /** The route's body, checked with the route's grammar ({@code bad-request} naming the field). */
    private static Map<String, Object> body(String verb, Flags flags) {
        SpaceName.of(flags.get("--space"), "space");
        Map<String, Object> body = new LinkedHashMap<>();
        flags.optional("--owner").ifPresent(owner -> body.put("owner", Owner.of(owner, "owner").value()));
        flags.optional("--subject").ifPresent(subject -> {
            IdpPin.checkSubject(subject);
            body.put("subject", subject);
        });
        flags.optional("--actor").ifPresent(actor -> body.put("actor", Actor.of(actor, "actor").value()));
        if (verb.equals("grant")) {
            Grant grant = Grant.of(items(flags.optional("--scope")), items(flags.optional("--subscribe")),
                    items(flags.optional("--publish")));
            GrantPolicy.checkHandLabel(flags.optional("--label").orElse(null));
            body.put("scope", grant.scope());
            body.put("allowSubscribe", grant.allowSubscribe());
            body.put("allowPublish", grant.allowPublish());
            flags.optional("--label").ifPresent(label -> body.put("label", label));
        }
        return body;
    }

    private static int send(String verb, String space, Path state, Map<String, Object> body, PrintStream out,
            PrintStream err) {
        String name = NAME + " " + verb;
        try {
            LoopbackFace.Answer answer = LoopbackFace.post(space, state, "/actors/" + verb, body, TIMEOUT);
            JsonNode answered = HostJson.tree(answer.body(), "answer");
            if (answer.status() != 200) {
                err.println(name + ": refused " + answer.status() + ": " + answered.path("code").asText("error") + ": "
                        + answered.path("error").asText("(no reason)"));
                return 1;
            }
            out.println(new String(answer.body(), StandardCharsets.UTF_8));
            return 0;
        } catch (LoopbackFace.NothingSent e) {
            err.println(name + ": " + e.getMessage());
            return 1;
        } catch (ContractException e) {
            err.println(name + ": the service's answer is not JSON (" + e.code() + ")");
            return 1;
        } catch (IOException | RuntimeException e) {
            err.println(name + ": " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println(name + ": interrupted; run the same command again (a grant or revoke may have landed)");
            return 1;
        }
    }

    /** A comma-separated list; absent is none. */
    private static List<String> items(Optional<String> value) {
        return value.map(text -> List.of(text.split(",", -1))).orElse(List.of());
    }
}
