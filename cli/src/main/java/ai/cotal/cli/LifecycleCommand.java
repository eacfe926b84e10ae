package ai.cotal.cli;

import ai.cotal.auth.Lifecycles;
import ai.cotal.core.CotalException;
import ai.cotal.core.id.LifecycleUid;
import ai.cotal.core.id.Principal;
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

/**
 * {@code cotal-auth lifecycle retire}: retires one lifecycle (SPEC §14.1) through the running
 * service's loopback route, {@code POST /interactive-lifecycle/retire} or
 * {@code /managed-lifecycle/retire}, with the capability of {@code <state>/auth-service.json}, and
 * prints the route's answer. The arguments are checked first ({@link Lifecycles#checkLifecycle}:
 * {@code bad-request} naming the field, exit 2) and the face is checked to be the service of
 * {@code --space} holding that capability ({@link ServiceCheck}) before anything is sent. Exit 0
 * when the lifecycle is retired ({@code retired}, {@code alreadyRetired}), 1 when nothing was
 * retired ({@code notStarted}, {@code conflict}) or the route refused, 2 usage.
 */
final class LifecycleCommand {
    private static final String NAME = "cotal-auth lifecycle retire";
    private static final String USAGE = "usage: cotal-auth lifecycle retire (--interactive | --managed) --space NAME"
            + " --state DIR --owner OWNER --actor ACTOR --lifecycle-uid UID";
    private static final List<String> VALUED = List.of("--space", "--state", "--owner", "--actor", "--lifecycle-uid");
    /** A retirement runs the barrier (credential rows, KICKs, the broker sweep): more than a plain request. */
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private LifecycleCommand() {
    }

    static int run(List<String> args, PrintStream out, PrintStream err) {
        if (args.isEmpty() || !args.get(0).equals("retire")) {
            err.println(USAGE);
            return 2;
        }
        Map<String, String> flags = new LinkedHashMap<>();
        for (int i = 1; i < args.size(); i++) {
            String flag = args.get(i);
            boolean kind = flag.equals("--interactive") || flag.equals("--managed");
            String key = kind ? "kind" : flag;
            String wrong = null;
            if (!kind && !VALUED.contains(flag)) {
                wrong = "unknown argument " + flag;
            } else if (!kind && i + 1 >= args.size()) {
                wrong = flag + " needs a value";
            } else if (flags.containsKey(key)) {
                wrong = (kind ? "--interactive or --managed" : flag) + " given twice";
            }
            if (wrong != null) {
                err.println(wrong);
                err.println(USAGE);
                return 2;
            }
            flags.put(key, kind ? flag : args.get(++i));
        }
        if (!flags.keySet().containsAll(List.of("kind", "--space", "--state", "--owner", "--actor", "--lifecycle-uid"))) {
            err.println(USAGE);
            return 2;
        }
        String owner = flags.get("--owner");
        String actor = flags.get("--actor");
        String uid = flags.get("--lifecycle-uid");
        try {
            Principal.of(owner, actor);
            LifecycleUid.of(uid, "lifecycleUid");
        } catch (CotalException e) {
            err.println(NAME + ": " + e.code().wire() + ": " + e.getMessage() + "; nothing was sent");
            return 2;
        }
        String route = flags.get("kind").equals("--managed") ? "/managed-lifecycle/retire" : "/interactive-lifecycle/retire";
        return retire(flags.get("--space"), Path.of(flags.get("--state")), route, Map.of("owner", owner, "actor", actor,
                "lifecycleUid", uid), out, err);
    }

    private static int retire(String space, Path state, String route, Map<String, String> body, PrintStream out,
            PrintStream err) {
        try {
            LoopbackFace.Answer answer = LoopbackFace.post(space, state, route, body, TIMEOUT);
            JsonNode answered = HostJson.tree(answer.body(), "answer");
            if (answer.status() != 200) {
                err.println(NAME + ": refused " + answer.status() + ": " + answered.path("error").asText("(no reason)")
                        + (answer.status() == 503 ? " (the retirement stays owed: run the same command again)" : ""));
                return 1;
            }
            out.println(new String(answer.body(), StandardCharsets.UTF_8));
            String outcome = answered.path("outcome").asText();
            return outcome.equals("retired") || outcome.equals("alreadyRetired") ? 0 : 1;
        } catch (LoopbackFace.NothingSent e) {
            err.println(NAME + ": " + e.getMessage());
            return 1;
        } catch (ContractException e) {
            err.println(NAME + ": the service's answer is not JSON (" + e.code() + ")");
            return 1;
        } catch (IOException | RuntimeException e) {
            err.println(NAME + ": " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println(NAME + ": interrupted; the retirement may be owed: run the same command again");
            return 1;
        }
    }
}
